-- Journal entries saved before the o200k_base switch keep a count of characters / 4 until edited.
-- Every entry that exists now is queued here; the worker recounts them with the service's
-- tokenizer in small batches and takes each off the queue. Writes since count with o200k_base
-- (saves, Markdown and campaign imports), so nothing new is queued.
create table journal_token_recounts (
  entry_id text primary key references journal_entries(id) on delete cascade
);
insert into journal_token_recounts (entry_id) select id from journal_entries;
