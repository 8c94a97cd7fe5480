-- Cards and deck links announce their changes once per statement, not once per row: a bulk write
-- (an import of thousands of cards in one COPY) paid a PL/pgSQL call and a pg_notify per row,
-- and every replica then read one notification per row. A statement that changes one row names
-- it as before ('<table>:<id>'); one that changes several sends '<table>:' (no id), which every
-- replica reads as "several rows of the table changed". Deck links name each deck they touched.
-- Transition tables take one event per trigger, hence three triggers per table.

CREATE FUNCTION agent_deck_notify_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    id text;
    old_id text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        SELECT count(*), min(o.id::text) INTO n, id FROM old_rows o;
    ELSE
        SELECT count(*), min(r.id::text) INTO n, id FROM new_rows r;
    END IF;
    IF n = 0 THEN
        RETURN NULL;
    END IF;
    IF n > 1 THEN
        PERFORM pg_notify('agent_deck_changes', TG_TABLE_NAME || ':');
        RETURN NULL;
    END IF;
    PERFORM pg_notify('agent_deck_changes', TG_TABLE_NAME || ':' || id);
    IF TG_OP = 'UPDATE' THEN
        SELECT o.id::text INTO old_id FROM old_rows o;
        IF old_id IS DISTINCT FROM id THEN
            PERFORM pg_notify('agent_deck_changes', TG_TABLE_NAME || ':' || old_id);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION agent_deck_notify_deck_cards() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM pg_notify('agent_deck_changes', 'deck_cards:' || d.deck_id::text)
        FROM (SELECT DISTINCT deck_id FROM new_rows) d;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('agent_deck_changes', 'deck_cards:' || d.deck_id::text)
        FROM (SELECT DISTINCT deck_id FROM old_rows) d;
    ELSE
        PERFORM pg_notify('agent_deck_changes', 'deck_cards:' || d.deck_id::text)
        FROM (SELECT deck_id FROM old_rows UNION SELECT deck_id FROM new_rows) d;
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER credentials_notify ON credentials;
DROP TRIGGER services_notify ON services;
DROP TRIGGER playbooks_notify ON playbooks;
DROP TRIGGER deck_cards_notify ON deck_cards;

CREATE TRIGGER credentials_notify_insert AFTER INSERT ON credentials
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();
CREATE TRIGGER credentials_notify_update AFTER UPDATE ON credentials
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();
CREATE TRIGGER credentials_notify_delete AFTER DELETE ON credentials
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();

CREATE TRIGGER services_notify_insert AFTER INSERT ON services
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();
CREATE TRIGGER services_notify_update AFTER UPDATE ON services
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();
CREATE TRIGGER services_notify_delete AFTER DELETE ON services
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();

CREATE TRIGGER playbooks_notify_insert AFTER INSERT ON playbooks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();
CREATE TRIGGER playbooks_notify_update AFTER UPDATE ON playbooks
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();
CREATE TRIGGER playbooks_notify_delete AFTER DELETE ON playbooks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_rows();

CREATE TRIGGER deck_cards_notify_insert AFTER INSERT ON deck_cards
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_deck_cards();
CREATE TRIGGER deck_cards_notify_update AFTER UPDATE ON deck_cards
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_deck_cards();
CREATE TRIGGER deck_cards_notify_delete AFTER DELETE ON deck_cards
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_deck_notify_deck_cards();
