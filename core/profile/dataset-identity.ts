// The hash lives beside the reader now (the sidecar manifest checks it too); runs import it from here.
export { datasetContentSha256 } from '../reader/content-hash.js';
