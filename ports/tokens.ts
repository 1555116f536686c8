// One tokenizer for every Ask budget: prompts and answers are counted the same whichever model answers.

export interface TokenCounter {
  /** Names the encoding, e.g. "o200k_base". */
  readonly name: string;
  count(text: string): Promise<number>;
}
