/**
 * The order registry: a name (or the caller's factory) → a strategy. The strategies know only
 * the shapes in types.ts; this file alone knows them all.
 */
import { validateContext } from './context.js';
import { OrderError } from './errors.js';
import { QuasiRandomOrder } from './strategies/quasi-random.js';
import { RandomOrder } from './strategies/random.js';
import { SequentialOrder } from './strategies/sequential.js';
import type { OrderContext, OrderFactory, TraversalOrder } from './types.js';
import { ORDER_NAMES, type OrderName } from '../../api/order-names.js';

/**
 * Builds an order. Built-in orders validate everything they need here, so a bad context
 * fails at loader construction rather than at the first epoch.
 */
export function createOrder(name: OrderName | OrderFactory, ctx: OrderContext): TraversalOrder {
  validateContext(ctx);
  if (typeof name === 'function') return name(ctx);
  switch (name) {
    case 'sequential':
      return new SequentialOrder(ctx);
    case 'random':
      return new RandomOrder(ctx);
    case 'quasi_random':
      return new QuasiRandomOrder(ctx);
    default: {
      // Reached only from untyped callers (CLI strings, JSON configs).
      const shown: unknown = name;
      throw new OrderError(
        'UNKNOWN_ORDER',
        `unknown traversal order ${JSON.stringify(shown)}; expected one of ${ORDER_NAMES.join(', ')} or a factory function`,
      );
    }
  }
}
