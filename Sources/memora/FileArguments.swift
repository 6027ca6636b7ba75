import ArgumentParser
import MemoraSystem

/// Files to work on as exiftool users name them: files, folders (their photos; with
/// `-r/--recursive` those of every folder below too), `--ext` to pick extensions, and `-` for a
/// list of paths on standard input, one per line. A file named explicitly is always taken (a
/// command reports what it cannot do with it); a folder contributes the files whose content is
/// a photo Memora reads (or, with `--ext`, whose extension is one of those given). Hidden files
/// and `.xmp` sidecars are skipped silently; any other file of a folder that is not a photo is
/// named on standard error ("skipped: not a photo") and counted.
struct FileArguments: ParsableArguments {
    @Flag(name: [.customShort("r"), .long], help: "Take the photos of folders below the folders given, too.")
    var recursive = false

    @Option(help: "In folders, take only files with this extension (repeatable: --ext jpg --ext heic).")
    var ext: [String] = []

    @Argument(help: "Photos or folders; - reads one path per line from standard input.")
    var paths: [String] = []

    /// The files, in the order given (a folder's sorted), each once; a folder's files that are not
    /// photos are named on standard error. (No paths is a usage error here, not in `validate()`:
    /// `vault add --stdin NAME` takes none.)
    func files() throws -> [String] { try select().files }

    /// ``files()``, with the files of folders skipped because their content is not a photo (each
    /// already named on standard error), for a command that counts them in its summary.
    func select() throws -> (files: [String], skipped: [String]) {
        guard !paths.isEmpty else { throw ValidationError("name at least one photo or folder, or - to read paths from standard input") }
        var result: [String] = []
        var skipped: [String] = []
        var seen: Set<String> = []
        func add(_ path: String) { if seen.insert(path).inserted { result.append(path) } }
        let wanted = Set(ext.map { $0.lowercased().drop { $0 == "." } }.map(String.init))
        for path in paths {
            if path == "-" {
                while let line = readLine() { if !line.isEmpty { add(line) } }
                continue
            }
            guard FileSystem.isFolder(path) else { add(path); continue }
            let found: [String]
            do {
                found = recursive
                    ? try FolderWalker(root: path).files().map(\.path)
                    : try FileSystem.entries(of: path).filter { !$0.name.hasPrefix(".") }.map { SystemPath.join(path, $0.name) }
                        .filter { FileSystem.statusIfPresent(of: $0)?.kind == .regular }.sorted()
            } catch {
                throw ValidationError("the folder \(path) cannot be read: \(error)")
            }
            for file in found where !file.lowercased().hasSuffix(".xmp") {
                let name = SystemPath.fileName(of: file)
                let fileExtension = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
                if !wanted.isEmpty {
                    if wanted.contains(fileExtension) { add(file) }
                } else if FileFormat.detect(contentsOf: file) != nil {
                    add(file)
                } else if !name.hasPrefix(".") {
                    skipped.append(file)
                }
            }
        }
        guard !result.isEmpty else {
            let notPhotos = skipped.isEmpty ? "" : " (\(skipped.count) file\(skipped.count == 1 ? " is" : "s are") not a photo)"
            throw ValidationError("no photos found in \(paths.joined(separator: ", "))\(notPhotos)\(recursive ? "" : " (add -r to look in the folders below)")")
        }
        for file in skipped { StandardError.write("memora: \(TerminalText.escaped(file)): skipped: not a photo\n") }
        return (result, skipped)
    }
}
