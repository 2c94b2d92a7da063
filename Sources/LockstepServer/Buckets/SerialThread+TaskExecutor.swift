/// A task that prefers a serial thread (`Task(executorPreference:)`) runs on it between its
/// suspensions: the PostgreSQL writer's task resumes there as soon as a query is answered,
/// rather than queueing for the cooperative pool, which a busy server keeps busy with its
/// connections. A group takes a dozen round trips, and each waited for a pool thread.
extension SerialThread: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        start { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
