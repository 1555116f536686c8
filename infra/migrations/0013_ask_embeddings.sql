-- Dense vectors (issue 11): a number from one sequence each time a passage's vector is written, so a
-- process that ranks vectors in memory reads only the vectors written since it last looked. The
-- pgvector column, where the server has the extension, is added at run time (adapters/sql/retrieval.ts):
-- a migration cannot depend on what a server happens to have installed.
create sequence ask_embedding_seq;
alter table ask_passages add column embedded_seq bigint;
create index ask_passages_embedded on ask_passages (campaign_id, embedded_seq) where embedded_seq is not null;
