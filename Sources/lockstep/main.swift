import LockstepServer
import LockstepPostgres
import LockstepClient
print("lockstep")
