// Shared test set-up lives here.
