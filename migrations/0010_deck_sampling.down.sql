DROP TABLE deck_sampling;
