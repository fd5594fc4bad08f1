/**
 * A build split into shards (`beton build --shard k/N`, `--shards N --emit`, `--status`):
 * the selection grammar the writer applies (--range, --shard) and the shards' files and
 * progress as the writer leaves them. The CLI parses, emits job scripts and prints from these.
 */
export { parseRangeSpec, parseShard } from '../writer/selection.js';
export { readShardsStatus, shardFileName, shardPaths, type ShardsStatus } from '../writer/shard-progress.js';
