-- Ask's retrieval index: one passage per record (per chunk for journal entries, per window of
-- utterances for transcripts) and an inverted index of its words (BM25 in SQL). Records are
-- indexed by triggers, so every write, delete and cascade keeps the index in the same
-- transaction; transcript windows are written by the import (adapters/sql/retrieval.ts).
create table ask_passages (
  id bigint generated always as identity primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  kind text not null,
  source_id text not null,
  position integer not null default 0,
  title text not null,
  -- Names the passage answers to (aliases, player, speakers, tags): weighed between title and body.
  names text not null default '',
  body text not null,
  -- The session a citation names; session_ids: every session the passage tells of (as_of_session).
  session_id text,
  session_ids text[] not null default '{}',
  -- Journal chunks only: the journal permission rule, kept with each chunk.
  author_id text,
  is_public boolean,
  readers text[],
  -- Transcript windows only.
  utterance_start integer,
  utterance_end integer,
  start_s double precision,
  end_s double precision,
  speakers text[],
  search_vector tsvector not null default ''::tsvector,
  -- Weighted word count, BM25's document length.
  len real not null default 0,
  embedding real[],
  embedding_model text
);
create index ask_passages_by_source on ask_passages (kind, source_id);
create index ask_passages_by_campaign on ask_passages (campaign_id, kind);
create index ask_passages_by_session on ask_passages (session_id) where session_id is not null;
create index ask_passages_fts on ask_passages using gin (search_vector);
create index ask_passages_title_trgm on ask_passages using gin (title gin_trgm_ops);
create index ask_passages_unembedded on ask_passages (campaign_id) where embedding is null;

-- The inverted index: one row per word of a passage, its weighted count, and the passage length.
create table ask_terms (
  campaign_id text not null,
  term text not null,
  passage_id bigint not null references ask_passages(id) on delete cascade,
  tf real not null,
  len real not null,
  primary key (campaign_id, term, passage_id)
);
create index ask_terms_by_passage on ask_terms (passage_id);

-- Wikilink markup out: [[Target|shown]] reads "shown", [[Target]] reads "Target".
create function ask_plain(t text) returns text language sql immutable as $$
  select regexp_replace(coalesce(t, ''), '\[\[(?:[^\]|]*\|)?([^\]]*)\]\]', '\1', 'g')
$$;

-- Every string inside a JSON value (quest objectives, progress logs, handouts), one per line.
create function ask_json_text(j jsonb) returns text language sql immutable as $$
  select coalesce(string_agg(v #>> '{}', E'\n'), '') from jsonb_path_query(coalesce(j, 'null'::jsonb), 'strict $.**') v where jsonb_typeof(v) = 'string'
$$;

create function ask_json_list(j jsonb) returns text[] language sql immutable as $$
  select coalesce(array_agg(v), '{}') from jsonb_array_elements_text(case when jsonb_typeof(j) = 'array' then j else '[]'::jsonb end) v
$$;

-- Titles weigh most, then names, then bodies; English stemming throughout (the question is parsed the same way).
create function ask_passage_vector() returns trigger language plpgsql as $$
begin
  new.search_vector := setweight(to_tsvector('english', new.title), 'A') || setweight(to_tsvector('english', new.names), 'B') || setweight(to_tsvector('english', new.body), 'C');
  new.len := coalesce((select sum(coalesce(array_length(positions, 1), 1)) from unnest(new.search_vector)), 0) + 1;
  return new;
end $$;
create trigger ask_passage_vector before insert or update of title, names, body on ask_passages for each row execute function ask_passage_vector();

-- Term counts weigh where the word stands: title 4, names 2, body 1.
create function ask_passage_terms() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' then delete from ask_terms where passage_id = new.id; end if;
  insert into ask_terms (campaign_id, term, passage_id, tf, len)
  select new.campaign_id, u.lexeme, new.id,
         (select sum(case w when 'A' then 4 when 'B' then 2 when 'C' then 1 else 0.5 end) from unnest(u.weights) w),
         new.len
  from unnest(new.search_vector) u;
  return null;
end $$;
create trigger ask_passage_terms after insert or update of search_vector on ask_passages for each row execute function ask_passage_terms();

-- One indexer per kind, callable by the triggers and by `cms ask reindex`.
create function ask_index_character(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'character' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body)
  select c.campaign_id, 'character', c.id, c.character_name,
         concat_ws(' ', array_to_string(ask_json_list(c.character_aliases), ' '), c.player_name, c.player_handle, c.type, s.name),
         ask_plain(concat_ws(E'\n', c.description, c.backstory))
  from characters c left join speakers s on s.id = c.speaker_id where c.id = rid;
end $$;

create function ask_index_entity(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind in ('faction', 'location', 'item') and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body)
  select e.campaign_id, e.kind, e.id, e.name, concat_ws(' ', array_to_string(ask_json_list(e.aliases), ' '), e.type), ask_plain(e.description)
  from entities e where e.id = rid;
end $$;

create function ask_index_session(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'session' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, body, session_id, session_ids)
  select s.campaign_id, 'session', s.id, s.title,
         ask_plain(concat_ws(E'\n', s.summary, s.notes, (select ask_json_text(h.handout) from session_handouts h where h.session_id = s.id))),
         s.id, array[s.id]
  from sessions s where s.id = rid;
end $$;

create function ask_index_beat(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'beat' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body, session_id, session_ids)
  select b.campaign_id, 'beat', b.id, b.label, b.type, ask_plain(b.description),
         (ask_json_list(b.game_session_ids))[1], ask_json_list(b.game_session_ids)
  from beats b where b.id = rid;
end $$;

create function ask_index_moment(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'moment' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body, session_id, session_ids)
  select m.campaign_id, 'moment', m.id, coalesce(nullif(m.label, ''), 'Moment'), array_to_string(ask_json_list(m.categories), ' '), ask_plain(m.content),
         m.session_id, case when m.session_id is null then '{}'::text[] else array[m.session_id] end
  from moments m where m.id = rid;
end $$;

create function ask_index_hero_award(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'hero_award' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body, session_id, session_ids)
  select a.campaign_id, 'hero_award', a.id, a.title, concat_ws(' ', a.character_name, a.player_name), ask_plain(a.description), a.session_id, array[a.session_id]
  from hero_awards a where a.id = rid;
end $$;

create function ask_index_recap_entry(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind in ('quote', 'spotlight') and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body, session_id, session_ids)
  select r.campaign_id, r.entry_type, r.id,
         coalesce(nullif(r.title, ''), nullif(r.character_name, ''), nullif(r.speaker, ''), initcap(r.entry_type)),
         concat_ws(' ', r.character_name, r.speaker, r.player_name),
         ask_plain(concat_ws(E'\n', r.text, r.context, r.description)),
         r.session_id, array[r.session_id]
  from recap_entries r where r.id = rid and r.entry_type in ('quote', 'spotlight');
end $$;

create function ask_index_quest(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'quest' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, title, names, body)
  select q.campaign_id, 'quest', q.id, q.quest_name, concat_ws(' ', q.quest_giver, q.quest_category, q.status),
         ask_plain(concat_ws(E'\n', q.success_definition, q.failure_conditions, q.next_action, q.resolution, ask_json_text(q.objectives), ask_json_text(q.progress_log_entries)))
  from quests q where q.id = rid;
end $$;

-- Journal entries: one passage per chunk, each carrying the entry's visibility.
create function ask_index_journal(rid text) returns void language plpgsql as $$
begin
  delete from ask_passages where kind = 'journal' and source_id = rid;
  insert into ask_passages (campaign_id, kind, source_id, position, title, names, body, author_id, is_public, readers)
  select e.campaign_id, 'journal', e.id, c.position, e.title, array_to_string(ask_json_list(e.tags), ' '), ask_plain(c.text),
         e.author_id, e.is_public, array(select s.user_id from journal_shares s where s.entry_id = e.id)
  from journal_entries e join journal_chunks c on c.entry_id = e.id where e.id = rid;
end $$;

create function ask_on_record() returns trigger language plpgsql as $$
declare
  rid text := case when tg_op = 'DELETE' then old.id else new.id end;
begin
  case tg_table_name
    when 'characters' then perform ask_index_character(rid);
    when 'entities' then perform ask_index_entity(rid);
    when 'sessions' then
      if tg_op = 'DELETE' then delete from ask_passages where kind = 'transcript' and source_id = rid; end if;
      perform ask_index_session(rid);
    when 'beats' then perform ask_index_beat(rid);
    when 'moments' then perform ask_index_moment(rid);
    when 'hero_awards' then perform ask_index_hero_award(rid);
    when 'recap_entries' then perform ask_index_recap_entry(rid);
    when 'quests' then perform ask_index_quest(rid);
    when 'journal_entries' then perform ask_index_journal(rid);
  end case;
  return null;
end $$;

create trigger ask_index after insert or update or delete on characters for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on entities for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on sessions for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on beats for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on moments for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on hero_awards for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on recap_entries for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on quests for each row execute function ask_on_record();
create trigger ask_index after insert or update or delete on journal_entries for each row execute function ask_on_record();

-- Parts kept in other tables: chunks and shares of journal entries, handouts of sessions, a speaker renamed.
create function ask_on_part() returns trigger language plpgsql as $$
declare
  row_ record := case when tg_op = 'DELETE' then old else new end;
begin
  case tg_table_name
    when 'journal_shares' then
      update ask_passages set readers = array(select s.user_id from journal_shares s where s.entry_id = row_.entry_id)
      where kind = 'journal' and source_id = row_.entry_id;
    when 'session_handouts' then perform ask_index_session(row_.session_id);
    when 'speakers' then perform ask_index_character(c.id) from characters c where c.speaker_id = row_.id;
  end case;
  return null;
end $$;
create trigger ask_index after insert or update or delete on journal_shares for each row execute function ask_on_part();
create trigger ask_index after insert or update or delete on session_handouts for each row execute function ask_on_part();
create trigger ask_index after update of name on speakers for each row execute function ask_on_part();

-- Chunks arrive many to a statement: each entry is indexed once per statement, not once per chunk.
create function ask_on_chunks() returns trigger language plpgsql as $$
begin
  perform ask_index_journal(e.entry_id) from (select distinct entry_id from changed) e;
  return null;
end $$;
create trigger ask_index_added after insert on journal_chunks referencing new table as changed for each statement execute function ask_on_chunks();
create trigger ask_index_changed after update on journal_chunks referencing new table as changed for each statement execute function ask_on_chunks();
create trigger ask_index_removed after delete on journal_chunks referencing old table as changed for each statement execute function ask_on_chunks();
