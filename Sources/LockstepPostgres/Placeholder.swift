public enum LockstepPostgresPlaceholder {}
