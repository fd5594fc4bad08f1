/**
 * The host's messages are written for the CLI too: "…, or build with --on-error skip". In the
 * app that choice is a button ("Retry skipping bad files") or the Sources form's "On a bad
 * file" setting, so the flag is taken out of the sentence (the rest of it still says what to do).
 */
const SKIP_FLAG = /,? or build with --on-error skip/g;

/** Whether a message offers skipping the bad sample (the CLI's --on-error skip). */
export const offersSkip = (message: string): boolean => /--on-error skip/.test(message);

/** The message without the CLI's flag. */
export function inAppWords(message: string): string {
  return message.replace(SKIP_FLAG, '').replace(/; or\b/g, '; ');
}
