-- search_candidates without sorts (issue 15, a campaign imported through the API and searched before
-- any ANALYZE). Its sample (40 documents of each type) and its probe (800 of a common word's type)
-- read the type's documents in the order of search_documents_by_campaign_id and stop there; but
-- without statistics the planner guesses (campaign, type) at 5 rows and read them ALL through a bitmap,
-- then sorted them for 40: 14,931 rows per type, 7,847 buffers, 124–465 ms at 134,000 documents.
-- With sorts off inside the function the ordered index scan is the plan whatever the statistics
-- (84 buffers, 7.9 ms there); nothing else in the function sorts (the text-index statements have no
-- ORDER BY).
alter function search_candidates(text, text, tsquery, tsquery, text, int) set enable_sort = off;
