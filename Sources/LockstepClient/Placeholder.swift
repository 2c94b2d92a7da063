public enum LockstepClientPlaceholder {}
