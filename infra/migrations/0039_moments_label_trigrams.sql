-- Moment search (`search`: a substring of the label, `label ilike '%…%'`) read the campaign's
-- moments in list order and kept those that matched, and counted its total the same way: every
-- moment of the campaign for a rare word (issue 15). A trigram index answers the pattern with the
-- matching moments alone; patterns under three characters still read the list (no trigram to look up).
create index moments_label_trgm on moments using gin (label gin_trgm_ops) with (gin_pending_list_limit = 64);
