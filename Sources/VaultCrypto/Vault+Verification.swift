import Foundation
import GRDB
internal import MemoraSystem

// Checking that the catalogue and the files agree, and repairing what can be repaired.
extension Vault {
    /// Checks that catalogue and files agree: every record authentic and naming a file inside the
    /// vault, every file there with its recorded sizes, every photo and thumbnail decrypting. With
    /// `repair`, removes orphan files (no record has their id) and records whose file is gone;
    /// damaged and tampered records, and every file a record names, are kept.
    public func verify(repair: Bool = false) throws(VaultCryptoError) -> VaultReport {
        try lock.withLock(repair ? .exclusive : .shared) { () throws(VaultCryptoError) in try verifyLocked(repair: repair) }
    }

    private func verifyLocked(repair: Bool) throws(VaultCryptoError) -> VaultReport {
        let records = try catalogue.read { db in try VaultPhotoRecord.fetchAll(db) }
        var report = VaultReport(orphanFiles: [], missingFiles: [], damagedPhotos: [], checkedCount: records.count)
        // A file is needed by any record with its id, authentic or not: a repair never takes it.
        let knownIDs = Set(records.map(\.id))
        var photos: [VaultPhoto] = []
        for record in records {
            do throws(VaultCryptoError) { photos.append(try checked(record)) } catch { report.tamperedRecords.append(shortened(record.id)) }
        }
        // Temporary files of an interrupted add are hidden (`.NAME.memora-XXXXXX`), so the walk lists them separately.
        let photosFolder = folder + "/Photos"
        var hidden: [String] = []
        for year in VaultFiles.names(in: photosFolder) {
            for month in VaultFiles.names(in: photosFolder + "/" + year) {
                hidden += VaultFiles.names(in: photosFolder + "/" + year + "/" + month).filter { $0.hasPrefix(".") }.map { year + "/" + month + "/" + $0 }
            }
        }
        for file in VaultFiles.files(under: photosFolder) + hidden {
            let name = SystemPath.fileName(of: file)
            let isOrphan = name.hasSuffix(".encrypted") && !(VaultLayout.photoID(inFileName: name).map(knownIDs.contains) ?? false)
            if isOrphan || Self.isLeftover(name) { report.orphanFiles.append("Photos/" + file) }
        }
        for name in VaultFiles.names(in: folder + "/Thumbnails") {
            let id = name.hasSuffix(".thumb") ? String(name.dropLast(".thumb".count)) : nil
            let isOrphan = id.map { !knownIDs.contains($0) } ?? false
            if isOrphan || Self.isLeftover(name) { report.orphanFiles.append("Thumbnails/" + name) }
        }
        for photo in photos {
            guard let path = FileSystem.pathInside(folder, relativePath: photo.relativePath) else {
                report.tamperedRecords.append(shortened(photo.id))
                continue
            }
            guard VaultFiles.exists(path) else {
                report.missingFiles.append(photo.id)
                report.fileNames[photo.id] = photo.originalFilename
                continue
            }
            do throws(VaultCryptoError) {
                let key = try keyWrapper.withLock { $0 }.unwrap([UInt8](photo.wrappedKey), photoID: photo.id)
                let header = try LOCACipher.header(ofFileAt: path)
                guard header.fileSize == UInt64(photo.encryptedSize), header.originalSize == UInt64(photo.originalSize) else {
                    throw VaultCryptoError.truncated(source: path, expected: UInt64(photo.encryptedSize), actual: header.fileSize)
                }
                try LOCACipher.verify(fileAt: path, key: key)
                if photo.hasThumbnail {
                    try LOCACipher.verify(fileAt: file(VaultLayout.thumbnailPath(id: photo.id)), key: Self.thumbnailKey(key))
                }
            } catch {
                report.damagedPhotos.append(photo.id)
                report.fileNames[photo.id] = photo.originalFilename
            }
        }
        if repair {
            report.wasRepaired = true
            let missing = report.missingFiles
            try catalogue.write { db in _ = try VaultPhotoRecord.deleteAll(db, ids: missing) }
            var removals = report.orphanFiles
            for id in missing where VaultFiles.exists(folder + "/" + VaultLayout.thumbnailPath(id: id)) {
                removals.append(VaultLayout.thumbnailPath(id: id))
            }
            for relative in removals {
                guard let path = FileSystem.pathInside(folder, relativePath: relative) else {
                    report.unremovedFiles.append(relative)
                    continue
                }
                VaultFiles.overwriteAndRemove(path)
                if VaultFiles.exists(path) { report.unremovedFiles.append(relative) }
            }
        }
        return report
    }
}
