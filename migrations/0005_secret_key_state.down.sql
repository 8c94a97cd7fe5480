-- Values already re-sealed with their row as associated data stay in that format: a release
-- from before 0005 cannot read them (set the secrets again after going back).
DROP TABLE secret_key_state;
