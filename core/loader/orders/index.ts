/** Traversal orders (loader-semantics §4): strategies the loader picks by name or factory. */
export { createOrder } from './registry.js';
export type { DistributedOptions, OrderContext, OrderFactory, TraversalOrder } from './types.js';
export { ORDER_NAMES, type OrderName } from '../../api/order-names.js';
export { OrderError, type OrderErrorCode } from './errors.js';
export { SequentialOrder } from './strategies/sequential.js';
export { RandomOrder, resolveSeed } from './strategies/random.js';
export { QuasiRandomOrder } from './strategies/quasi-random.js';
export { groupByHomePage, type PageGroups } from './page-groups.js';
export { distributedShare, gather, perRankCount, sequentialShare } from './distributed.js';
export { defaultRng, numpyPermutation, numpyPermutationOfRange, shuffleInPlace } from './numpy-random.js';
export { Pcg64 } from './pcg64.js';
export { seedSequenceState, seedSequenceU64x4, seedWords } from './seed-sequence.js';
export { Mt19937 } from './mt19937.js';
export { torchRandperm, TORCH_RANDPERM_MAX_N } from './torch-randperm.js';
export { pageLocality, type PageLocality } from './locality.js';
