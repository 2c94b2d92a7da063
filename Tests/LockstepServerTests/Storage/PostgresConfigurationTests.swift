import LockstepPostgres
import Testing

@Suite("PostgreSQL URLs")
struct PostgresConfigurationTests {
    @Test func readsEveryPartOfAURL() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://lock%40step:p%3Ass@db.internal:6543/sync?sslmode=require&schema=node_a")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "lock@step")
        #expect(configuration.password == "p:ss")
        #expect(configuration.database == "sync")
        #expect(configuration.tls == .require)
        #expect(configuration.schema == "node_a")
        #expect(!configuration.redactedDescription.contains("p:ss"))
    }

    @Test func defaultsToNoTLSThePortAndTheUsersDatabase() throws {
        let configuration = try PostgresStore.Configuration(url: "postgresql://lockstep@127.0.0.1")
        #expect(configuration.port == 5432)
        #expect(configuration.password == nil)
        #expect(configuration.database == nil)
        #expect(configuration.tls == .disable)
        #expect(configuration.schema == nil)
        #expect(try PostgresStore.Configuration(url: "postgres://u:p@[::1]:5433/d").host == "::1")
    }

    @Test func refusesWhatItCannotUseWithAReason() {
        let cases: [(String, String)] = [
            ("mysql://u:p@h/d", "postgres://"),
            ("postgres://h/d", "no user"),
            ("postgres://u:p@h/d?sslmode=sometimes", "sslmode sometimes"),
            ("postgres://u:p@h/d?connect_timeout=3", "connect_timeout"),
            ("postgres://u:p@h/d?schema=Robert%27);DROP", "schema"),
        ]
        for (url, words) in cases {
            #expect {
                try PostgresStore.Configuration(url: url)
            } throws: { error in
                "\(error)".contains(words)
            }
        }
    }
}
