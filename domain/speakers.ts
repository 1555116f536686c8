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
