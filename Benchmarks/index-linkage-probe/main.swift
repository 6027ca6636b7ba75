// `index-linkage-probe FOLDER DATABASE`: indexes the photos of FOLDER into DATABASE with PhotoIndex
// alone (faces from the photos' metadata, no model) and prints how many were indexed. It exists for
// `scripts/check-linkage.sh`: a program that imports PhotoIndex must link no dlib, BLAS or ONNX
// Runtime (PhotoIndex builds on PhotoVisionCore's protocols; the engines come from PhotoVision).
import Foundation
import PhotoIndex

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: index-linkage-probe FOLDER DATABASE")
    exit(2)
}
do {
    let database = try PhotoIndexDatabase(path: arguments[2])
    let summary = try await PhotoIndexer(database: database).index(DirectoryPhotoLibrary(root: arguments[1]))
    print("indexed \(summary.indexed) of \(summary.total)")
} catch {
    print("index-linkage-probe: \(error)")
    exit(1)
}
