/**
 * torchvision's IMG_EXTENSIONS, compared case-insensitively as torchvision does: what an
 * image folder lists, what makes a table column a column of image paths, and what a video
 * folder reports as stray images. Here, below those folders, so that none imports another for it.
 */
export const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp'];
