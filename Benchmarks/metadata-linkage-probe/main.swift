// `metadata-linkage-probe PHOTO`: prints the photo's MIME type and whether it has a GPS position,
// read with MetadataKit alone. It exists for `scripts/check-linkage.sh`: a program that imports
// MetadataKit and nothing else of ours must link no NIO, no BoringSSL, no dlib, no GRDB.
import Foundation
import MetadataKit

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: metadata-linkage-probe PHOTO\n".utf8))
    exit(2)
}
do {
    let metadata = try MetadataReader.scan(contentsOf: CommandLine.arguments[1])
    print("\(metadata.mimeType) gps=\(metadata.gps != nil)")
} catch {
    FileHandle.standardError.write(Data("metadata-linkage-probe: \(error)\n".utf8))
    exit(1)
}
