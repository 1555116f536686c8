// Seeding through the service's HTTP API, as a client would: a user, a key, campaigns.
import { call } from "./local-http.ts";
import { ADMIN_KEY } from "./servers.ts";

export interface BenchUser {
  userId: string;
  keyId: string;
  key: string;
}

/** A user (admin route) and an API key issued to it. */
export async function createUserWithKey(url: string, name = "Bench User", email = `bench-${crypto.randomUUID()}@example.test`): Promise<BenchUser> {
  const admin = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };
  const user = await call(`${url}/internal/v1/users`, { method: "POST", headers: admin, body: JSON.stringify({ name, email }) });
  if (user.status !== 201) throw new Error(`create user: ${user.status} ${user.text}`);
  const issued = await call(`${url}/internal/v1/users/${user.json.id}/keys`, { method: "POST", headers: admin, body: "{}" });
  if (issued.status !== 201) throw new Error(`issue key: ${issued.status} ${issued.text}`);
  return { userId: String(user.json.id), keyId: String(issued.json.id), key: String(issued.json.key) };
}

/** `POST /v1/campaigns` as the key's user; returns the new campaign's id. */
export async function createCampaign(url: string, key: string, campaign: { title: string; description?: string; system?: string }): Promise<string> {
  const created = await call(`${url}/v1/campaigns`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(campaign) });
  if (created.status !== 201) throw new Error(`create campaign: ${created.status} ${created.text}`);
  return String(created.json.id);
}

export interface Seeded extends BenchUser {
  campaignId: string;
  /** The service's answers to the two routes measured, kept to check the ceilings against. */
  campaignBody: string;
  listBody: string;
}

/** The HTTP benchmark's data: one user and key, the campaign that is read, and `more` campaigns for the list. */
export async function seedCampaigns(url: string, more: number): Promise<Seeded> {
  const user = await createUserWithKey(url);
  const { key } = user;
  const create = (title: string, description: string) => createCampaign(url, key, { title, description, system: "D&D 5e" });
  const campaignId = await create("The Sunken Crown", "A coastal campaign: smugglers, a drowned king and a lighthouse that remembers.");
  for (let i = 1; i <= more; i++) await create(`Bench campaign ${String(i).padStart(3, "0")}`, `Seeded for the list benchmark (#${i}).`);
  const read = await call(`${url}/v1/campaigns/${campaignId}`, { headers: { "x-api-key": key } });
  if (read.status !== 200) throw new Error(`read campaign: ${read.status} ${read.text}`);
  const list = await call(`${url}/v1/campaigns`, { headers: { "x-api-key": key } });
  if (list.status !== 200 || list.json.total !== more + 1) throw new Error(`list campaigns: ${list.status} ${list.text.slice(0, 300)}`);
  return { ...user, campaignId, campaignBody: read.text, listBody: list.text };
}
