public import PhotoIndex
public import PhotoVision
public import PhotoVisionCore

extension IndexVision {
    /// The index's vision from the installed models (`InstalledVision`): dlib's faces and
    /// MobileNetV2's scenes, each on one thread; with `readsText` PP-OCRv4's text reader on
    /// `textThreads`; with `thoroughFaces` dlib's CNN detector too. PhotoIndex itself builds on
    /// PhotoVisionCore alone; the engines come from here. Throws what is missing, with the command
    /// that installs it.
    public static func installed(models: VisionModels = .installed, readsText: Bool = false, textThreads: Int = 1,
                                 thoroughFaces: Bool = false) throws(VisionError) -> IndexVision {
        let engines = try InstalledVision(models: models, readsText: readsText, textThreads: textThreads, thoroughFaces: thoroughFaces)
        return IndexVision(faces: engines.faces, scenes: engines.scenes, text: engines.text)
    }
}
