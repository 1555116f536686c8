-- Ask's question analysis (adapters/sql/retrieval.ts) found the characters and entities a question
-- names by reading every name of the campaign and matching each against the question as a phrase
-- (issue 15): 1.7 s a question at 10,000 records per kind, growing with the campaign. Now a name is
-- found by key: its English lexemes in order, each with its place relative to the first (so "The
-- Faction of Ash" is "faction:0 ash:2"), and the question is cut into every such window (from each
-- lexeme to each lexeme at most 7 places on). A name is a candidate when one of the question's
-- windows is its key; the caller still checks the phrase. A name longer than 8 places is keyed by
-- its first 8. Misspelled names are found through the list vocabulary's nearest words (0030).

-- Both bodies call built-in functions only: PostgreSQL 17 (PGlite) builds an expression index with
-- search_path pg_catalog, pg_temp, and a function's own `set search_path` cost 8x (the setting made
-- every call plan its statements again: 160 against 20 µs a character, 4 minutes at 100k per kind).

-- The windows of a question's lexemes: from each place holding a lexeme to each later place holding
-- one, at most 7 on, each written as a name's key is.
create function ask_phrase_windows(v tsvector) returns text[] language sql immutable parallel safe as $$
  with p as (select u.lexeme, pos from unnest(v) u, unnest(u.positions) pos),
       places as (select distinct pos from p)
  select coalesce(array(select string_agg(p.lexeme || ':' || (p.pos - s.pos), ' ' order by p.pos, p.lexeme)
                        from places s join places e on e.pos between s.pos and s.pos + 7 join p on p.pos between s.pos and e.pos
                        group by s.pos, e.pos), '{}')
$$;

-- The keys of a record's names (its name, its player's name, its aliases): each name's lexemes from
-- its first, at most 7 places on.
create function ask_name_keys(name text, player text, aliases jsonb) returns text[] language sql immutable parallel safe as $$
  select coalesce(array_agg(distinct y.k order by y.k), '{}')
  from (select (select string_agg(x.lexeme || ':' || (x.pos - x.first), ' ' order by x.pos, x.lexeme)
                from (select u.lexeme, p.pos, min(p.pos) over () as first from unnest(to_tsvector('english', n)) u, unnest(u.positions) p(pos)) x
                where x.pos - x.first <= 7) as k
        from unnest(array[name, player] || array(select jsonb_array_elements_text(case when jsonb_typeof(aliases) = 'array' then aliases else '[]'::jsonb end))) n
        where n <> '') y
  where y.k is not null
$$;

create index characters_ask_names on characters using gin (ask_name_keys(character_name, player_name, character_aliases));
create index entities_ask_names on entities using gin (ask_name_keys(name, null::text, aliases));
