import { ORDER_NAMES, type OrderName } from '../api/order-names.js';

/** Whether a flag's value names a traversal order (the contract's one list). */
export const isOrderName = (s: string): s is OrderName => (ORDER_NAMES as readonly string[]).includes(s);

/** "sequential, random or quasi_random", for usage messages. */
export const ORDER_CHOICES = `${ORDER_NAMES.slice(0, -1).join(', ')} or ${ORDER_NAMES[ORDER_NAMES.length - 1]}`;
