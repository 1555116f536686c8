-- Spoiler-safe asking (as_of_session) leaves out every later session's passages before anything is
-- scored, and reads their ids by session. With the campaign and the id in the index that read is
-- index-only instead of a heap fetch per passage (issue 15: 105k passages, asked as of the last
-- real episode, 95k ids to leave out: 317 ms to 47 ms for that step).
drop index ask_passages_by_session;
create index ask_passages_by_session on ask_passages (session_id) include (campaign_id, id) where session_id is not null;
