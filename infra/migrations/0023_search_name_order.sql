-- List search (issue 15): a search's first page no longer ranks every match. Names that start with
-- the query come first, exact name first, then in name order: these indexes hold that order per
-- campaign (and per kind), so the page is the first rows of a range scan however many names share
-- the prefix (1,176 for a 4-letter prefix at 100k). Code point order ("C"), so a prefix is a range
-- under any database collation.
create index characters_by_name on characters (campaign_id, (lower(character_name)) collate "C", created_at desc, id desc);
create index entities_by_name on entities (campaign_id, kind, (lower(name)) collate "C", created_at desc, id desc);
