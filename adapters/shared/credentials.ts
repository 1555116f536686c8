// How a caller presents an API key, on HTTP and on MCP (which rides on HTTP) alike.

/** `x-api-key`, or `Authorization: Bearer <key>`. */
export const presentedKey = (headers: Headers): string | null => {
  const direct = headers.get("x-api-key");
  if (direct) return direct.trim();
  const authorization = headers.get("authorization");
  const match = authorization?.match(/^Bearer\s+(.+)$/i);
  return match ? match[1]!.trim() : null;
};
