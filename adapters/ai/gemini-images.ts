// Images drawn by a Gemini image model through @google/genai: generateContent asked for an image,
// whose answer carries it as inline data (base64 with its MIME type). Errors become the AI port's
// two errors, the key redacted, as for answers (adapters/ai/gemini.ts).
import { GoogleGenAI, Modality } from "@google/genai";
import { ModelFailed } from "../../ports/ai.ts";
import type { ImageGenerator } from "../../ports/media.ts";
import { translate } from "./gemini.ts";

export interface GeminiImageOptions {
  apiKey: string;
  /** e.g. gemini-2.5-flash-image. */
  model: string;
  baseUrl?: string | null;
  timeoutMs?: number;
}

export class GeminiImageGenerator implements ImageGenerator {
  readonly model: string;
  private readonly ai: GoogleGenAI;

  constructor(private readonly options: GeminiImageOptions) {
    this.model = options.model;
    this.ai = new GoogleGenAI({ apiKey: options.apiKey, httpOptions: { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), timeout: options.timeoutMs ?? 120_000 } });
  }

  async generate(prompt: string): Promise<{ bytes: Uint8Array; contentType: string }> {
    try {
      const response = await this.ai.models.generateContent({
        model: this.model,
        contents: [{ role: "user", parts: [{ text: prompt }] }],
        config: { responseModalities: [Modality.TEXT, Modality.IMAGE] },
      });
      const blocked = response.promptFeedback?.blockReason;
      if (blocked) throw new ModelFailed(`Gemini refused the prompt (${blocked})`, null);
      const parts = response.candidates?.[0]?.content?.parts ?? [];
      const image = parts.find((part) => part.inlineData?.data && part.inlineData.mimeType?.startsWith("image/"))?.inlineData;
      if (!image?.data) {
        const reason = response.candidates?.[0]?.finishReason;
        throw new ModelFailed(`Gemini answered without an image${reason && reason !== "STOP" ? ` (${reason})` : ""}`, null);
      }
      return { bytes: new Uint8Array(Buffer.from(image.data, "base64")), contentType: image.mimeType! };
    } catch (error) {
      throw translate(error, this.options.apiKey);
    }
  }
}
