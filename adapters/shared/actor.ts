// Who is acting, for the change feed's actor_id: set once around a use case by invoke(), read by the
// SQL adapter when it opens a transaction (the feed's triggers read it from the transaction).
import { AsyncLocalStorage } from "node:async_hooks";

const acting = new AsyncLocalStorage<string>();

export const asActor = <T>(userId: string | null | undefined, work: () => Promise<T>): Promise<T> => (userId ? acting.run(userId, work) : work());

export const currentActor = (): string | null => acting.getStore() ?? null;
