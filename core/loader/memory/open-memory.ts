import type { Reader } from '../../reader/reader.js';
import type { MemoryManager } from './memory-manager.js';
import { OsCache } from './os-cache.js';
import { ProcessCache, type ProcessCacheOptions } from './process-cache.js';

/** The memory manager LoaderOptions.osCache picks: the OS page cache (true) or the process cache. */
export function openMemory(osCache: boolean, path: string, reader: Reader, opts: ProcessCacheOptions): Promise<MemoryManager> {
  return osCache ? Promise.resolve(new OsCache()) : ProcessCache.open(path, reader, opts);
}
