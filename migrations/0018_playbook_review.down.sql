ALTER TABLE playbook_proposals DROP COLUMN edit;
DROP TABLE deck_playbook_review;
