/**
 * The rules the sources read paths by, for the service's confinement (services/fs-access.ts):
 * the image extensions a folder lists and what counts as a path pattern. Re-exported here so
 * the front ends keep to their one door (core/app) and confine by exactly the sources' rules.
 */
export { IMAGE_EXTENSIONS } from '../sources/common/image-extensions.js';
export { isPathPattern } from '../sources/common/path-patterns.js';
