import Foundation
import MemoraSystem
import Testing
import TestSupport
@testable import PhotoVision

@Suite("The models folder")
struct VisionModelsTests {
    @Test("a missing model is a typed error that names the file, the folder and the script that installs it")
    func missingModel() throws {
        let folder = try temporaryFolder()
        defer { try? FileSystem.removeTree(folder) }
        let models = VisionModels(folder: folder)
        #expect(!models.isComplete)
        do {
            _ = try models.require(.faceEmbedding)
            Issue.record("a missing model was accepted")
        } catch {
            #expect(error.code == .modelMissing)
            #expect(error.message.contains("dlib_face_recognition_resnet_model_v1.dat") && error.message.contains(folder)
                    && error.message.contains("scripts/install-models.sh"), "\(error.message)")
        }
        try FileSystem.makeFolder(folder + "/dlib")
        try AtomicFileWriter.write([1, 2, 3], to: folder + "/dlib/dlib_face_recognition_resnet_model_v1.dat")
        #expect(try models.require(.faceEmbedding) == folder + "/dlib/dlib_face_recognition_resnet_model_v1.dat")
    }

    @Test("the installed runtime loads; a file that is not a library is refused with the loader's reason")
    func runtimeLoads() throws {
        let folder = try temporaryFolder()
        defer { try? FileSystem.removeTree(folder) }
        try AtomicFileWriter.write(Array("not a library".utf8), to: folder + "/fake.so")
        #expect(throws: DynamicLibrary.LoadError.self) { try DynamicLibrary(path: folder + "/fake.so") }
        let runtime = try DynamicLibrary(path: VisionModels.installed.require(.onnxRuntime))
        #expect(runtime.symbol("OrtGetApiBase") != nil)
        #expect(runtime.symbol("no_such_symbol") == nil)
    }
}
