/**
 * Which loader measured a point: `beton` (ours), `ffcv` (the real FFCV Loader in a Python
 * child, from our exported code), `torch` (torchvision ImageFolder + DataLoader over the
 * source folder: what a user runs before converting). Its own module so that the answer's
 * contract (profile-answer.ts) and the data model (profile-model.ts) share it without a cycle.
 */
export type EngineName = 'beton' | 'ffcv' | 'torch';
