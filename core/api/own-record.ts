import { z } from 'zod';
import { setOwn } from '../format/own-keys.js';

/**
 * A record keyed by names users choose (field names, class names): zod's `z.record` skips a
 * `__proto__` key (it would replace the prototype of the `{}` it builds), so a loader config's
 * pipeline for a field named `__proto__` vanished and the field fell back to its default
 * (issue 19 item 8). This schema walks the input's own enumerable keys, validates each value
 * with `value`, and returns a prototype-free object whose every key, `__proto__` included, is
 * an own entry (read it with ownValue / Object.entries). Errors carry the key in their path.
 */
export function ownRecord<V extends z.ZodType>(value: V): z.ZodType<Record<string, z.output<V>>, Record<string, z.input<V>>> {
  return z.unknown().transform((input, ctx) => {
    const out = Object.create(null) as Record<string, z.output<V>>;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      ctx.addIssue({ code: 'custom', message: 'expected an object keyed by name' });
      return z.NEVER;
    }
    for (const key of Object.keys(input)) {
      const r = value.safeParse(Object.getOwnPropertyDescriptor(input, key)?.value);
      if (r.success) setOwn(out, key, r.data);
      else for (const iss of r.error.issues) ctx.addIssue({ code: 'custom', message: iss.message, path: [key, ...iss.path] });
    }
    return out;
  }) as unknown as z.ZodType<Record<string, z.output<V>>, Record<string, z.input<V>>>;
}
