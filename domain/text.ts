export const MAX_IMAGE_URL_LENGTH = 2048;
export const IMAGE_URL_PATTERN = "^https://[^\\s/?#]+\\S*$";

/** Every `image` field must be an HTTPS URL of at most 2048 characters. */
export const imageUrlProblem = (value: string): string | null => {
  if (value.length > MAX_IMAGE_URL_LENGTH) return `URL should have at most ${MAX_IMAGE_URL_LENGTH} characters`;
  if (!new RegExp(IMAGE_URL_PATTERN).test(value)) return "URL must use https and name a host";
  return null;
};

export const collapseWhitespace = (value: string): string => value.replace(/\s+/g, " ").trim();
