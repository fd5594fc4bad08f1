/**
 * Files a user names to a front end, handled as core does for its own: a config read whole
 * (a regular file only: a FIFO would hang, a device read forever), and the temporary files of
 * an output removed synchronously when a signal stops the process (a build, a merge).
 */
export { readRegularText } from '../native/regular-file.js';
export { removeOwnTempsSync } from '../writer/temp-files.js';
