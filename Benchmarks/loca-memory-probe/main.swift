// `loca-memory-probe INPUT OUTPUT`: encrypts INPUT into the LOCA file OUTPUT with a fresh key
// and prints this process's resident memory before the encryption and its peak after, in MiB
// (VmRSS and VmHWM from /proc/self/status; unlike getrusage's maxrss they are not inherited
// across exec). It links VaultCrypto alone, so its peak is what a program that only encrypts
// needs; memora-bench runs it for its streaming-memory figure.
import Foundation
import VaultCrypto

func megabytes(_ field: String) throws -> Double {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0) / 1024
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: loca-memory-probe INPUT OUTPUT\n".utf8))
    exit(2)
}
do {
    let before = try megabytes("VmRSS")
    try LOCACipher().encryptFile(at: arguments[1], to: arguments[2], key: SecretKey())
    print(String(format: "%.1f %.1f", before, try megabytes("VmHWM")))
} catch {
    FileHandle.standardError.write(Data("loca-memory-probe: \(error)\n".utf8))
    exit(1)
}
