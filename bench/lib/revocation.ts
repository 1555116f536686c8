// The revocation rule, checked after the load runs: once the admin revokes a key, the very next
// request with it is refused (by the service, and by the one-query ceiling reading the same table).
import { call } from "./local-http.ts";
import type { Seeded } from "./seed.ts";
import { ADMIN_KEY } from "./servers.ts";

export const revocationChecks: Record<string, unknown>[] = [];

/** Revokes the key with the admin key, then shows the very next request with it is refused. */
export async function checkRevocation(label: string, serviceUrl: string, data: Seeded, alsoUrls: { name: string; url: string }[] = []) {
  const before = await call(`${serviceUrl}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
  const revoke = await call(`${serviceUrl}/internal/v1/keys/${data.keyId}`, { method: "DELETE", headers: { "x-api-key": ADMIN_KEY } });
  const after = await call(`${serviceUrl}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
  const check: Record<string, unknown> = {
    backend: label,
    before_revoke_status: before.status,
    revoke_status: revoke.status,
    next_request_status: after.status,
    next_request_body: after.json,
    ok: before.status === 200 && revoke.status === 204 && after.status === 401,
  };
  console.log(`  revoke (${label}): GET before -> ${before.status}; DELETE /internal/v1/keys/${data.keyId} -> ${revoke.status}; very next GET with the key -> ${after.status} ${after.text}`);
  for (const other of alsoUrls) {
    const response = await call(`${other.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
    check[`${other.name}_next_request_status`] = response.status;
    console.log(`  revoke (${label}): ${other.name} with the revoked key -> ${response.status} ${response.text}`);
    if (response.status !== 401) check.ok = false;
  }
  revocationChecks.push(check);
  if (!check.ok) throw new Error(`revocation check failed on ${label}: ${JSON.stringify(check)}`);
}
