import type { ProfilePlan } from '../../api/profile-model.js';
import { BetonError } from '../../format/errors.js';
import { isRemoteUrl } from '../../remote/url.js';
import { sourceFolderCheck } from '../engines/engine-points.js';
import { engineAvailability } from '../engines/python-engine.js';

/**
 * Every engine of a plan can run here (Python engines import; the torch engine has its source
 * folder and a crop decoder), else a BetonError with one line on how to get it. The CLI and
 * the service call it before a sweep starts, so a missing FFCV is one line now, not an error
 * after minutes of sweeping the other engines (and no failed run in the database).
 */
export async function checkEngines(
  plan: Pick<ProfilePlan, 'engines' | 'source'> & { decoder?: string; file?: string },
  python?: string | null,
): Promise<void> {
  // FFCV and the torch baseline open a local path (FFCV memory-maps it): a URL is named
  // as such, before any interpreter is looked for (no Python traceback, no --python hint).
  const local = (plan.engines ?? []).filter((e) => e !== 'beton');
  if (plan.file !== undefined && isRemoteUrl(plan.file) && local.length)
    throw new BetonError(
      'ENGINE_UNAVAILABLE',
      `${plan.file}: the ${local.join(' and ')} engine${local.length > 1 ? 's read' : ' reads'} local files only (FFCV memory-maps its file); profile a URL with --engine beton, or copy it first: beton cp ${plan.file} FILE`,
    );
  for (const e of plan.engines ?? []) {
    const a = await engineAvailability(e, python);
    if (!a.available) throw new BetonError('ENGINE_UNAVAILABLE', a.reason ?? `the ${e} engine is not available here`);
  }
  if (plan.engines?.includes('torch')) sourceFolderCheck(plan.source, plan.decoder ?? 'rrc:160');
}
