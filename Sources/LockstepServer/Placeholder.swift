public enum LockstepServerPlaceholder {}
