// Speakers: the voices of transcripts, and the players characters link to.

export interface Speaker {
  id: string;
  campaign_id: string;
  name: string;
  handle: string | null;
  user_id: string | null;
  roles: string[];
  created_at: string;
}

/**
 * Labels transcripts give the game master by title rather than by name. A speaker so labelled is a
 * game master even where no campaign speaker of that name has the `gm` role.
 */
export const GM_TITLES: readonly string[] = ["GM", "DM"];

/** The voices left out of spotlight equity and read as narration: the `gm` speakers and the GM titles. */
export const gameMasterNames = (speakers: readonly Speaker[]): string[] => [
  ...speakers.filter((speaker) => speaker.roles.includes("gm")).map((speaker) => speaker.name),
  ...GM_TITLES,
];
