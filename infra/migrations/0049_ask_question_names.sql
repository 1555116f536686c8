-- Ask's question analysis (adapters/sql/retrieval.ts) found the characters and entities a question
-- names by reading every name of the campaign and matching each against the question as a phrase
-- (issue 15): 1.7 s a question at 10,000 records per kind, growing with the campaign. Now a name is
-- found by key: its English lexemes in order, each with its place relative to the first (so "The
-- Faction of Ash" is "faction:0 ash:2"), and the question is cut into every such window (from each
-- lexeme to each lexeme at most 7 places on). A name is a candidate when one of the question's
-- windows is its key; the caller still checks the phrase. A name longer than 8 places is keyed by
-- its first 8. Misspelled names are found through the list vocabulary's nearest words (0030).

-- PostgreSQL 17 (PGlite) builds an expression index with search_path pg_catalog, pg_temp: the
-- functions keep the schema they were created in.

-- The windows of a text's lexemes: from each place holding a lexeme to each later place holding
-- one, at most 7 on; `whole` keeps only the window from the first lexeme (a name's key).
create function ask_phrase_windows(v tsvector, whole boolean) returns text[] language sql immutable parallel safe set search_path from current as $$
  with p as (select u.lexeme, pos from unnest(v) u, unnest(u.positions) pos),
       places as (select distinct pos from p),
       starts as (select pos from places where not whole or pos = (select min(pos) from places)),
       spans as (select s.pos as s, e.pos as e from starts s join places e on e.pos between s.pos and s.pos + 7
                 where not whole or e.pos = (select max(x.pos) from places x where x.pos <= s.pos + 7))
  select coalesce(array(select string_agg(p.lexeme || ':' || (p.pos - spans.s), ' ' order by p.pos, p.lexeme)
                        from spans join p on p.pos between spans.s and spans.e group by spans.s, spans.e), '{}')
$$;

-- The keys of a record's names (its name, its player's name, its aliases).
create function ask_name_keys(name text, player text, aliases jsonb) returns text[] language sql immutable parallel safe set search_path from current as $$
  select coalesce(array(select distinct k from unnest(array[name, player] || ask_json_list(aliases)) n,
                        unnest(ask_phrase_windows(to_tsvector('english', n), true)) k where n <> ''), '{}')
$$;

create index characters_ask_names on characters using gin (ask_name_keys(character_name, player_name, character_aliases));
create index entities_ask_names on entities using gin (ask_name_keys(name, null::text, aliases));
