// Concurrent askers for the Ask benchmarks (bench/ask.ts, bench/ask-answer.ts): each asker asks
// every question `rounds` times, in an order of its own, so the askers do not move in step.

/** Runs `askers` loops at once over `questions`; resolves with the wall time in seconds. */
export async function concurrentAskers<Q>(questions: readonly Q[], askers: number, rounds: number, ask: (question: Q) => Promise<void>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: askers }, async (_, asker) => {
      for (let round = 0; round < rounds; round++)
        for (let i = 0; i < questions.length; i++) await ask(questions[(i * 7 + asker * 11 + round * 13) % questions.length]!);
    }),
  );
  return (performance.now() - started) / 1000;
}
