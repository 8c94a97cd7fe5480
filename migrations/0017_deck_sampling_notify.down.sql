DROP TRIGGER IF EXISTS deck_sampling_notify ON deck_sampling;
