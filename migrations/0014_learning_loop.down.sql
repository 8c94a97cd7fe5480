ALTER TABLE playbook_versions DROP COLUMN proposal_id;
DROP TABLE playbook_fetches;
DROP TABLE feedback_signals;
DROP TABLE playbook_proposals;
