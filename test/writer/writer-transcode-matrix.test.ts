/**
 * The whole matrix of the writer's one-call image path (test/helpers/transcode-matrix.ts):
 * seven source sizes up to 512×512 against the step-by-step bytes, every write mode built
 * with the one-call path on and off under 0 and 2 workers, and 24 copies of each odd JPEG
 * decoded by two workers at once. Slow tier; writer-transcode.test.ts runs a slice of each fast.
 */
import { describeTranscodeMatrix } from '../helpers/transcode-matrix.js';

describeTranscodeMatrix({
  sizes: [
    [1, 1],
    [17, 13],
    [333, 251],
    [500, 300],
    [64, 480],
    [512, 512],
    [300, 300],
  ],
  modes: [
    ['jpg', 32],
    ['jpg', null],
    ['smart', 48],
    ['raw', 24],
    ['proportion', 40],
  ],
  copies: 24,
});
