// `core-linkage-probe DATABASE`: opens Memora's caption database at DATABASE with MemoraCore alone,
// makes a cloud caption generator (it is asked nothing) and prints its name and the database's
// recent errors. It exists for `scripts/check-linkage.sh`: a program that imports
// MemoraCore must link no TLS stack (SwiftNIO, BoringSSL) and no server; the pinned transport for
// the cloud endpoints is MemoraPinning's, which a front end adds (`memora caption` does).
import Foundation
import MemoraCore

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: core-linkage-probe DATABASE")
    exit(2)
}
do {
    let database = try CaptionDatabase(path: arguments[1])
    let generator = OpenAICaptionGenerator(apiKey: nil)
    print("\(generator.modelInfo.displayName): \(try database.recentErrors().count) recent errors")
} catch {
    print("core-linkage-probe: \(error)")
    exit(1)
}
