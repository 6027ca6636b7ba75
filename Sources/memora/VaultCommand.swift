import ArgumentParser
import Foundation
import MemoraCore
import MemoraSystem
import ImageKit
import MetadataKit
import VaultCrypto

/// `memora vault`: an encrypted photo vault (LOCA files, per-photo keys).
struct VaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Keep photos in an encrypted vault.",
        discussion: """
            Each vault's master key lives in its own key file (mode 0600), by default \
            $XDG_CONFIG_HOME/memora/keys/<vault id>.key (else ~/.config/memora/...). Set MEMORA_PASSPHRASE to protect it with a \
            passphrase (Argon2id); passphrases are never taken as arguments, which \
            other users could read in the process list.
            """,
        subcommands: [Init.self, Add.self, List.self, Export.self, Remove.self, RotateKey.self, Verify.self, Keygen.self, Share.self, Import.self])

    /// Options every vault command shares.
    struct VaultOptions: ParsableArguments {
        @Option(help: "The vault folder.")
        var vault = "vault"

        @Option(help: "The master key file (default: ~/.config/memora/keys/<vault id>.key).")
        var keyFile: String?

        /// The key store of the vault with `identifier`: one key file per vault, so
        /// rotating one vault's key never affects another.
        func keyStore(forVault identifier: String) throws -> FileKeyStore {
            let path = keyPath(forVault: identifier)
            return FileKeyStore(path: path, passphrase: try VaultOptions.passphrase(for: path))
        }

        /// `--key-file`, else the vault's own key file in the configuration folder.
        func keyPath(forVault identifier: String) -> String {
            keyFile ?? (VaultCommand.configurationFolder + "/keys/\(identifier).key")
        }

        /// The passphrase of the key file at `path`: none for a key file that has none (MEMORA_PASSPHRASE
        /// set for another vault does not stop this one opening; a note says it went unused); for a
        /// protected one MEMORA_PASSPHRASE when set (scripts), else the passphrase typed at the
        /// terminal; without a terminal, an error naming the variable. For a key file not made yet,
        /// MEMORA_PASSPHRASE (or none).
        static func passphrase(for path: String) throws -> String? {
            let given = ProcessInfo.processInfo.environment["MEMORA_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
            guard FileSystem.exists(path) else { return given }
            guard FileKeyStore.needsPassphrase(at: path) else {
                if given != nil {
                    StandardError.write("memora: note: MEMORA_PASSPHRASE is set, but \(TerminalText.escaped(path)) has no passphrase; it opens without one\n")
                }
                return nil
            }
            if let given { return given }
            guard ProcessEnvironment.standardInputIsTerminal else {
                throw VaultCryptoError.passphraseMismatch(path: path, reason: "this key file is protected by a passphrase: set MEMORA_PASSPHRASE to it, or run on a terminal to type it")
            }
            return ProcessEnvironment.readSecretLine(prompt: "Passphrase for \(path): ")
        }

        @Option(help: "Your sharing identity file (default: ~/.config/memora/identity.key).")
        var identityFile: String?

        func open() throws -> Vault {
            try Vault.open(at: vault, keyStore: keyStore(forVault: try Vault.identifier(at: vault)))
        }

        /// The sharing identity's key file, protected by MEMORA_PASSPHRASE like the master key.
        var identityStore: FileKeyStore {
            let path = identityFile ?? (VaultCommand.configurationFolder + "/identity.key")
            let passphrase = ProcessInfo.processInfo.environment["MEMORA_PASSPHRASE"]
            return FileKeyStore(path: path, passphrase: passphrase?.isEmpty == false ? passphrase : nil)
        }

        func identity() throws -> SharingIdentity {
            let store = identityStore
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: store.path).deletingLastPathComponent().path,
                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try SharingIdentity.loadOrCreate(in: store)
        }
    }

    /// `$XDG_CONFIG_HOME/memora`, else `$HOME/.config/memora`.
    static var configurationFolder: String {
        ApplicationFolders().configuration
    }

    /// Reads a passphrase from the environment variable `name`; never from an argument.
    static func passphrase(fromEnvironment name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw ValidationError("the environment variable \(name) holds no passphrase")
        }
        return value
    }

    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create (or show) your sharing identity and print its public form.")
        @OptionGroup var options: VaultOptions

        func run() throws {
            let identity = try options.identity()
            print(identity.publicKey.text)
            StandardError.write("fingerprint: \(identity.publicKey.fingerprint)\n")
            StandardError.write("key file: \(options.identityStore.path)\n")
        }
    }

    struct Share: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a signed .locaphoto bundle of a photo for one recipient.",
            discussion: "Give the recipient's public identity (from `memora vault keygen`) with --to, or the name of an environment variable holding a passphrase with --passphrase-env.")
        @OptionGroup var options: VaultOptions
        @Argument(help: "The photo id.") var id: String
        @Option(help: "The recipient's public identity (memora-share1:...).") var to: String?
        @Option(help: "An environment variable holding a passphrase for the bundle.") var passphraseEnv: String?
        @Option(name: .shortAndLong, help: "Where to write the bundle (.locaphoto); never inside the vault folder.") var output: String
        @Flag(help: "Replace the output file if it exists.") var force = false
        @OptionGroup var say: WriteOutputOptions

        func validate() throws {
            guard (to == nil) != (passphraseEnv == nil) else { throw ValidationError("give exactly one of --to and --passphrase-env") }
        }

        func run() throws {
            let recipient: ShareRecipient
            if let to {
                guard let key = SharingPublicKey(text: to) else { throw ValidationError("--to is not a sharing identity (memora-share1:...)") }
                recipient = .identity(key)
            } else {
                recipient = .passphrase(try VaultCommand.passphrase(fromEnvironment: passphraseEnv!))
            }
            let vault = try options.open()
            if say.dryRun {
                let photo = try VaultCommand.checkWrite(of: id, from: vault, to: output, replacingExisting: force)
                say.say("would write a signed bundle of \(photo.originalFilename) to \(output); nothing written")
                return
            }
            try vault.share(id, from: try options.identity(), to: recipient, writingTo: output, replacingExisting: force)
            say.say(output)
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Verify a .locaphoto bundle and add its photo to the vault.")
        @OptionGroup var options: VaultOptions
        @Argument(help: "The bundle file.") var bundle: String
        @Option(help: "Refuse the bundle unless this identity signed it.") var from: String?
        @Option(help: "An environment variable holding the bundle's passphrase.") var passphraseEnv: String?
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let expected: SharingPublicKey?
            if let from {
                guard let key = SharingPublicKey(text: from) else { throw ValidationError("--from is not a sharing identity (memora-share1:...)") }
                expected = key
            } else {
                expected = nil
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: bundle)
            guard (attributes[.size] as? Int ?? 0) <= ShareBundle.defaultMaximumSize else {
                throw ValidationError("\(bundle) is larger than a share bundle can be")
            }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bundle)))
            let passphrase = try passphraseEnv.map(VaultCommand.passphrase(fromEnvironment:))
            let vault = try options.open()
            let identity = passphrase == nil ? try options.identity() : nil
            let sender: SharingPublicKey
            if output.dryRun {
                let (received, existing) = try vault.checkImportShare(bytes, identity: identity, passphrase: passphrase, expectedSender: expected)
                sender = received.sender
                output.say(existing.map { "\(bundle): verified; its photo is already in the vault as \($0.id)" }
                           ?? "\(bundle): verified; would add \(received.metadata.originalFilename) (\(received.contents.count) bytes); nothing written")
            } else {
                let imported = try vault.importShare(bytes, identity: identity, passphrase: passphrase, expectedSender: expected)
                sender = imported.sender
                output.say(VaultCommand.line(imported.addition))
            }
            if !output.quiet {
                StandardError.write("signed by \(sender.fingerprint)\(expected == nil ? " (not checked against a known sender; use --from to require one)" : "")\n")
            }
        }
    }

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a vault (and a master key if the key file does not exist).")
        @OptionGroup var options: VaultOptions
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            if output.dryRun {
                try Vault.checkCreate(at: options.vault)
                output.say("would create the vault \(options.vault) with a new master key in " + (options.keyFile ?? VaultCommand.configurationFolder + "/keys/")
                           + "; nothing written")
                return
            }
            let identifier = UUID().uuidString.lowercased()
            let path = options.keyPath(forVault: identifier)
            var passphrase = ProcessInfo.processInfo.environment["MEMORA_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
            // A new key on a terminal: the passphrase typed twice (MEMORA_PASSPHRASE in scripts).
            if passphrase == nil, !FileSystem.exists(path), ProcessEnvironment.standardInputIsTerminal {
                let first = ProcessEnvironment.readSecretLine(
                    prompt: "Passphrase for the new master key (empty for none; MEMORA_PASSPHRASE sets it in scripts): ") ?? ""
                if !first.isEmpty {
                    guard ProcessEnvironment.readSecretLine(prompt: "The same passphrase again: ") == first else {
                        StandardError.write("memora vault init: the two passphrases differ; nothing was created\n")
                        throw ExitStatus.nothingDone
                    }
                    passphrase = first
                }
            } else if passphrase == nil, FileSystem.exists(path) {
                passphrase = try VaultOptions.passphrase(for: path)
            }
            let store = FileKeyStore(path: path, passphrase: passphrase)
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: store.path).deletingLastPathComponent().path,
                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            _ = try Vault.create(at: options.vault, keyStore: store, identifier: identifier)
            print("Created vault \(options.vault) (\(AEADAlgorithm.preferred))")
            print("Master key: \(store.path)\(passphrase == nil ? " (not protected by a passphrase)" : " (protected by your passphrase)")")
            print("Back up the master key file\(passphrase == nil ? "" : " and remember its passphrase"): without it the photos in the vault cannot be decrypted by anyone.")
            if passphrase == nil {
                StandardError.write("memora: note: the master key has no passphrase: anyone who can read \(TerminalText.escaped(store.path)) can decrypt the vault. "
                                    + "Set MEMORA_PASSPHRASE (or type one on a terminal) when creating a vault to protect its key.\n")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt photos into the vault (the originals are left as they are unless --remove-originals).",
            discussion: """
                --stdin NAME captures one photo from standard input (a camera tool's output, curl, another program's \
                pipe) under NAME: it is encrypted as it arrives and never written to the disk in plain text. \
                --remove-originals removes each original only after its encrypted copy is written, synced, read back, \
                decrypted and compared by hash; it asks first (--yes in scripts). Removing a file unlinks it: on an SSD \
                or a copy-on-write file system (btrfs, ZFS, APFS) its old blocks may survive until reused, so it is not \
                a secure wipe; full-disk encryption is what protects them.
                """)
        @OptionGroup var options: VaultOptions
        @OptionGroup var input: FileArguments
        @Option(name: .customLong("stdin"), help: ArgumentHelp("Capture one photo from standard input under this file name, without a plain-text copy on the disk.", valueName: "name"))
        var stdinName: String?
        @Option(help: "A tag to attach (repeatable).") var tag: [String] = []
        @Flag(help: "Remove the location (EXIF GPS, XMP and IPTC location fields) from the encrypted copy, in memory; the original file is left as it is.")
        var stripLocation = false
        @Flag(help: "Remove each original once its encrypted copy is verified (asks first).") var removeOriginals = false
        @Flag(help: "Answer yes to the question --remove-originals asks (for scripts).") var yes = false
        @Flag(help: "Print the added records as JSON.") var json = false
        @OptionGroup var output: WriteOutputOptions

        func validate() throws {
            if let stdinName {
                guard input.paths.isEmpty else { throw ValidationError("--stdin captures one photo from standard input: name no files with it") }
                guard !stdinName.isEmpty, !stdinName.contains("/"), stdinName != ".", stdinName != ".." else {
                    throw ValidationError("--stdin needs a file name for the photo (photo.jpg), not a path")
                }
                guard !removeOriginals else { throw ValidationError("--remove-originals removes files; --stdin reads none") }
                guard !output.dryRun else { throw ValidationError("--dry-run cannot capture: standard input is read once") }
            }
            if removeOriginals && !output.dryRun { try Confirmation.requireTerminal(unless: yes, "--remove-originals") }
        }

        /// One file of a dry run: whether the vault holds its content already.
        struct Planned: Encodable {
            var path: String
            var alreadyStoredAs: String?
        }

        func run() async throws {
            if let stdinName { return try await capture(stdinName) }
            let (files, skipped) = try input.select()
            let vault = try options.open()
            if output.dryRun { return try dryRun(files, vault) }
            if removeOriginals { return try move(files, skipped: skipped.count, vault) }
            let progress = ProgressReporter(title: "vault add", total: files.count, silent: output.quiet || json)
            let results = VaultImport(stripsLocation: stripLocation, tags: tag).add(files, to: vault) { completed, file in
                progress.update(completed: completed, item: file)
            }
            var added: [VaultAddition] = []
            var failures = 0
            for result in results {
                switch result {
                case .success(let addition): added.append(addition)
                case .failure(let error):
                    failures += 1
                    StandardError.write("error: \(error)\n")
                }
            }
            if json {
                try printJSON(added.map { PhotoSummary($0.photo, alreadyStored: $0.wasAlreadyStored) })
            } else {
                for addition in added { output.say(VaultCommand.line(addition)) }
            }
            try ExitStatus.check(failed: failures, done: added.count)
        }

        /// `--stdin NAME`: one photo from standard input, encrypted as it arrives.
        private func capture(_ name: String) async throws {
            let vault = try options.open()
            let addition = try await VaultImport(stripsLocation: stripLocation, tags: tag).add(chunks: InputChunks(), name: name, to: vault)
            if json {
                try printJSON([PhotoSummary(addition.photo, alreadyStored: addition.wasAlreadyStored)])
            } else {
                output.say(VaultCommand.line(addition))
            }
        }

        /// `--remove-originals`: each file added, verified, then removed (after one question).
        private func move(_ files: [String], skipped: Int, _ vault: Vault) throws {
            try Confirmation.confirm(
                "Encrypt \(files.count) photo\(files.count == 1 ? "" : "s") into the vault and remove each original once its encrypted copy is verified? "
                    + "Removal is not a secure wipe on an SSD or a copy-on-write file system.",
                unless: yes, command: "vault add")
            let progress = ProgressReporter(title: "vault add", total: files.count, silent: output.quiet || json)
            let results = VaultImport(stripsLocation: stripLocation, tags: tag).move(files, into: vault) { completed, file in
                progress.update(completed: completed, item: file)
            }
            var moved: [VaultImport.Move] = []
            var failures = 0
            for result in results {
                switch result {
                case .success(let move): moved.append(move)
                case .failure(let error):
                    failures += 1
                    StandardError.write("error: \(error)\n")
                }
            }
            let removed = moved.filter(\.removed).count
            if json {
                try printJSON(moved.map { move in
                    var summary = PhotoSummary(move.addition.photo, alreadyStored: move.addition.wasAlreadyStored)
                    summary.originalRemoved = move.removed
                    summary.originalKept = move.keptBecause
                    return summary
                })
            } else {
                for move in moved {
                    output.say(VaultCommand.line(move.addition) + (move.removed ? "  (original removed)" : "  (original kept: \(move.keptBecause ?? "not verified"))"))
                }
                output.say("removed \(removed) of \(files.count) original\(files.count == 1 ? "" : "s")"
                           + (removed > 0 ? " (unlinked: on an SSD or a copy-on-write file system the old blocks may survive until reused)" : "")
                           + (skipped > 0 ? "; \(skipped) file\(skipped == 1 ? "" : "s") skipped: not a photo" : ""))
            }
            try ExitStatus.check(failed: failures, done: moved.count)
        }

        /// `--dry-run`: each file read (and stripped in memory with --strip-location) and looked up.
        private func dryRun(_ files: [String], _ vault: Vault) throws {
            let importer = VaultImport(stripsLocation: stripLocation, tags: tag)
            var planned: [Planned] = []
            var failures = 0
            for file in files {
                do {
                    planned.append(Planned(path: file, alreadyStoredAs: try importer.check(file, against: vault)?.id))
                } catch {
                    failures += 1
                    StandardError.write("error: \(error)\n")
                }
            }
            if json {
                try printJSON(planned)
            } else {
                for item in planned {
                    output.say(item.alreadyStoredAs.map { "\(item.path): already in the vault as \($0); would not be added again" }
                               ?? "\(item.path): would be encrypted into the vault\(stripLocation ? " without its location" : "")\(removeOriginals ? ", and the original removed once its copy is verified" : "")")
                }
            }
            try ExitStatus.check(failed: failures, done: planned.count)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the photos in the vault.")
        @OptionGroup var options: VaultOptions
        @Flag(help: "Include hidden photos.") var hidden = false
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            let listing = try options.open().listing(includeHidden: hidden)
            if json {
                try printJSON(listing.photos.map { PhotoSummary($0) })
            } else {
                for photo in listing.photos {
                    let size = [photo.width, photo.height].compactMap { $0 }.map(String.init).joined(separator: "x")
                    print("\(photo.id)  \(photo.originalFilename)  \(photo.format) \(size)  \(photo.originalSize) bytes\(photo.isFavorite ? "  ★" : "")")
                }
            }
            // The others are listed; a record changed outside Memora is named on stderr, and the exit status says so.
            for id in listing.tamperedRecords {
                StandardError.write("memora: tampered record (changed outside Memora, not listed): \(TerminalText.escaped(id)); memora vault verify checks the vault\n")
            }
            if !listing.tamperedRecords.isEmpty { throw ExitStatus.someFailed }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decrypt a photo to a file.")
        @OptionGroup var options: VaultOptions
        @Argument(help: "The photo id (see `memora vault list`).") var id: String
        @Option(name: .shortAndLong, help: "Where to write the photo; never inside the vault folder.") var output: String
        @Flag(help: "Replace the output file if it exists.") var force = false
        @OptionGroup var say: WriteOutputOptions

        func run() throws {
            let vault = try options.open()
            if say.dryRun {
                let photo = try VaultCommand.checkWrite(of: id, from: vault, to: output, replacingExisting: force)
                say.say("would decrypt \(photo.originalFilename) (\(photo.originalSize) bytes) to \(output); nothing written")
                return
            }
            try vault.export(id, to: output, replacingExisting: force)
            say.say(output)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove photos from the vault.",
            discussion: "Files are overwritten before they are unlinked; on SSDs and copy-on-write file systems this is not a guarantee.")
        @OptionGroup var options: VaultOptions
        @Argument(help: "Photo ids.") var ids: [String]
        @Flag(help: "Answer yes to the question it asks (for scripts).") var yes = false
        @OptionGroup var output: WriteOutputOptions

        func validate() throws {
            if !output.dryRun { try Confirmation.requireTerminal(unless: yes, "removing photos from the vault cannot be undone, so it") }
        }

        func run() throws {
            let vault = try options.open()
            if output.dryRun {
                for id in ids {
                    let photo = try vault.photo(id: id)
                    output.say("would remove \(id)  \(photo.originalFilename); nothing removed")
                }
                return
            }
            try Confirmation.confirm("Remove \(ids.count) photo(s) from \(options.vault) for good? Their encrypted files are overwritten; this cannot be undone.",
                                     unless: yes, command: "memora vault remove")
            for id in ids {
                try vault.remove(id)
                output.say("removed \(id)")
            }
        }
    }

    struct RotateKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Replace the master key and re-wrap every photo key (photo files are not rewritten).")
        @OptionGroup var options: VaultOptions
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let vault = try options.open()
            if output.dryRun {
                output.say("would make a new master key for \(options.vault) and re-wrap \(try vault.photos(includeHidden: true).count) photo keys; nothing written")
                return
            }
            try vault.rotateMasterKey()
            print("Rotated the master key of \(options.vault); \(try vault.photos(includeHidden: true).count) photo keys re-wrapped")
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check that the catalogue and the files agree and that every photo decrypts.")
        @OptionGroup var options: VaultOptions
        @Flag(help: "Remove orphan files and records whose file is gone (never a file a record names, nor a damaged or tampered record).")
        var repair = false
        @Flag(help: "Print the result as JSON.") var json = false

        struct Report: Encodable {
            var checked: Int
            var orphanFiles: [String]
            var missingFiles: [String]
            var damagedPhotos: [String]
            var tamperedRecords: [String]
            /// The original file names of the missing and damaged photos, by id.
            var fileNames: [String: String]
            var healthy: Bool
        }

        func run() throws {
            let report = try options.open().verify(repair: repair)
            if json {
                try printJSON(Report(checked: report.checkedCount, orphanFiles: report.orphanFiles, missingFiles: report.missingFiles,
                                     damagedPhotos: report.damagedPhotos, tamperedRecords: report.tamperedRecords, fileNames: report.fileNames,
                                     healthy: report.isHealthyNow))
            } else {
                print("\(report.checkedCount) photos checked")
                func named(_ id: String) -> String { id + (report.fileNames[id].map { " (\(TerminalText.escaped($0)))" } ?? "") }
                for file in report.orphanFiles { print("orphan file\(repair ? " (removed)" : ""): \(file)") }
                for id in report.missingFiles { print("missing file\(repair ? " (record removed)" : ""): \(named(id))") }
                for id in report.damagedPhotos { print("damaged: \(named(id)): its file does not decrypt; restore it from a backup, or remove it (memora vault remove \(id))") }
                for id in report.tamperedRecords { print("tampered record (changed outside Memora): \(TerminalText.escaped(id))") }
                for file in report.unremovedFiles { print("could not remove: \(file)") }
                print(report.isHealthyNow ? "the vault is healthy" : "the vault is not healthy")
            }
            // Non-zero while anything is wrong, with or without --repair (a repair does not fix damage).
            if !report.isHealthyNow { throw ExitStatus.someFailed }
        }
    }

    /// The dry run of a command that writes photo `id` to `output` (export, share): the output's
    /// checks, and the photo's record.
    static func checkWrite(of id: String, from vault: Vault, to output: String, replacingExisting: Bool) throws -> VaultPhoto {
        try vault.checkOutput(output, replacingExisting: replacingExisting)
        return try vault.photo(id: id)
    }

    /// The line printed for a photo added or imported: its id and name, and whether it was there already.
    static func line(_ addition: VaultAddition) -> String {
        "\(addition.photo.id)  \(addition.photo.originalFilename)\(addition.wasAlreadyStored ? "  (already in the vault)" : "")"
    }

    /// A vault record for JSON output, without its wrapped key.
    struct PhotoSummary: Encodable {
        var id, filename, format: String
        var width, height: Int?
        var originalSize: Int64
        var takenAt: Date?
        var tags: [String]
        var favorite, hidden, thumbnail: Bool
        /// Set by `add`: whether the vault already held this content.
        var alreadyStored: Bool?
        /// Set by `add --remove-originals`: whether the original was removed, and why it was kept when not.
        var originalRemoved: Bool?
        var originalKept: String?

        init(_ photo: VaultPhoto, alreadyStored: Bool? = nil) {
            self.alreadyStored = alreadyStored
            id = photo.id
            filename = photo.originalFilename
            format = photo.format
            width = photo.width
            height = photo.height
            originalSize = photo.originalSize
            takenAt = photo.takenAt
            tags = photo.tags
            favorite = photo.isFavorite
            hidden = photo.isHidden
            thumbnail = photo.hasThumbnail
        }
    }
}
