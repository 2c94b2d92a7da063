public enum LockstepCorePlaceholder {}
