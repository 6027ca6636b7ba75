import Foundation
import ImageKit
import MemoraHub
import MemoraHTTP
import MemoraServer
import MemoraSync
import MemoraSystem
import MetadataKit
import ServerTestSupport
import Testing
import TestSupport

/// The dashboard's memory pages: every memory in pages (keyset links), filters, search on both stores,
/// a page for each memory, and media served in parts (range requests).
@Suite("Memory Palace memory pages")
struct HubMemoryPagesTests {
    /// A signed-in browser, without the browser: GET with the session cookie.
    struct Visitor {
        let server: TestServer
        let cookie: String

        init(_ server: TestServer) async throws {
            self.server = server
            let data = try await ServerData.open(server.folder, database: server.database)
            cookie = "memora_dashboard=" + (try await data.newDashboardSession())
        }

        func get(_ path: String, headers: [String: String] = [:]) async throws -> HTTPResponse {
            let url = try #require(URL(string: server.url.absoluteString + path))
            return try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url, headers: headers.merging(["Cookie": cookie]) { $1 }))
        }

        /// Posts a form as the page's own (`Origin` this hub's unless `origin` says otherwise).
        func post(_ path: String, _ fields: [(String, String)], origin: String? = nil, cookie sent: Bool = true, extra: [String: String] = [:]) async throws -> HTTPResponse {
            let url = try #require(URL(string: server.url.absoluteString + path))
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
            var headers = ["Content-Type": "application/x-www-form-urlencoded", "Origin": origin ?? "http://127.0.0.1:\(server.port)"].merging(extra) { $1 }
            if sent { headers["Cookie"] = cookie }
            return try await URLSessionTransport().send(HTTPRequest(method: "POST", url: url, headers: headers, body: Data(body.utf8)))
        }

        func page(_ path: String) async throws -> String {
            let response = try await get(path)
            #expect(response.status == 200, "\(path): \(response.status) \(String(decoding: response.body, as: UTF8.self).prefix(300))")
            return String(decoding: response.body, as: UTF8.self)
        }

        /// The memories a listing page shows (by their links), and its link to the next page.
        func listing(_ path: String) async throws -> (ids: [Int64], next: String?, html: String) {
            let html = try await page(path)
            let ids = html.matches(of: /<h3 id="memory-\d+"><a href="\/memories\/(\d+)">/).compactMap { Int64($0.output.1) }
            let next = html.firstMatch(of: /<a href="([^"]+)" rel="next">/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") }
            return (ids, next, html)
        }

        /// Every memory a listing leads to, page after page.
        func all(_ path: String) async throws -> [Int64] {
            var ids: [Int64] = [], next: String? = path, pages = 0
            while let link = next, pages < 50 {
                let page = try await listing(link)
                ids += page.ids
                next = page.next
                pages += 1
            }
            return ids
        }
    }

    static let day: Int64 = 86_400_000
    /// 1 January 2019, 12:00 UTC.
    static let start: Int64 = 1_546_344_000_000

    @Test("every memory in pages of 24, newest first by when it was made, each page a stable keyset link; filters by person, kind and year; search over titles and texts with the same results on both stores",
          arguments: TestStore.available)
    func pagesFiltersSearch(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-memory-pages")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana"), rui = try await hub.addPerson(name: "Rui")
            // 50 diary notes a month apart from January 2019; every tenth without a date (made when it reached the hub).
            for index in 0..<50 {
                _ = try await hub.upload(MemoryUpload(kind: .text, title: "Note \(index)", description: "Day \(index) of the diary",
                                                      takenAt: index % 10 == 5 ? nil : Self.start + Int64(index) * 30 * Self.day,
                                                      people: index % 5 == 0 ? [ana.id] : nil))
            }
            let soup = try await hub.upload(MemoryUpload(kind: .text, title: "Soup", description: "Grandma's soup <recipe> with leeks",
                                                         takenAt: Self.start + 400 * Self.day, people: [rui.id])).memory
            let kitchen = try await hub.upload(MemoryUpload(kind: .text, title: "Soup kitchen volunteering", description: "Served lunch",
                                                            takenAt: Self.start + 420 * Self.day)).memory
            let book = try await hub.upload(MemoryUpload(kind: .text, title: "Recipe book", description: "Bread and cakes", takenAt: Self.start + 10 * Self.day)).memory
            // Text that PostgreSQL's parser would read as an address, a version and a hyphenated word.
            let mixed = try await hub.upload(MemoryUpload(kind: .text, title: "Lists", description: "Sent to ana@example.com: version v2.0 of the sun-dried list",
                                                          takenAt: Self.start + 5 * Self.day)).memory
            let voiceFile = folder + "/story.m4a"
            try await mediaFixture(voiceFile, "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac")
            let voice = try await hub.upload(MemoryUpload(kind: .voice, title: "Grandpa's story", takenAt: Self.start + 500 * Self.day), file: voiceFile).memory

            // The expected order: when made (taken, else reached the hub), newest first, then id.
            var every: [HubMemory] = [], cursor: String?
            repeat {
                let page = try await hub.memories(cursor: cursor, limit: 100)
                every += page.memories
                cursor = page.nextCursor
            } while cursor != nil
            #expect(every.count == 55)
            func ordered(_ memories: [HubMemory]) -> [Int64] {
                memories.sorted { ($0.takenAt ?? $0.createdAt, $0.id) > ($1.takenAt ?? $1.createdAt, $1.id) }.map(\.id)
            }
            let visitor = try await Visitor(server)
            let first = try await visitor.listing("/memories")
            #expect(first.ids.count == 24 && first.next != nil)
            #expect(try await visitor.all("/memories") == ordered(every))

            // A page's link stays valid when a newer memory arrives: it shows the same memories.
            let second = try #require(first.next)
            let before = try await visitor.listing(second).ids
            _ = try await hub.upload(MemoryUpload(kind: .text, title: "Newest", description: "Written today"))
            let after = try await visitor.listing(second)
            #expect(after.ids == before)
            #expect(after.html.contains(">Newest memories</a>"))

            // Filters: a person's, a kind, a year, and together.
            #expect(try await visitor.all("/memories?person=\(ana.id)") == ordered(every.filter { $0.people.contains(ana.id) }))
            #expect(try await visitor.all("/memories?kind=voice") == [voice.id])
            let year2020: ClosedRange<Int64> = 1_577_836_800_000...1_609_459_199_999
            let in2020 = ordered(every.filter { year2020.contains($0.takenAt ?? $0.createdAt) })
            #expect(in2020.count > 5)
            #expect(try await visitor.all("/memories?year=2020") == in2020)
            #expect(try await visitor.all("/memories?q=soup&kind=text&year=2020&person=\(rui.id)") == [soup.id])
            // The form's "every" choices are empty values.
            #expect(try await visitor.all("/memories?q=&person=&kind=&year=").count == 56)

            // Search: whole words of the title or the text, in any case, every word asked for.
            func search(_ words: String) async throws -> [Int64] {
                try await visitor.all("/memories?q=" + (words.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            }
            #expect(try await search("soup") == [kitchen.id, soup.id])
            #expect(try await search("SOUP recipe") == [soup.id])
            #expect(try await search("recipe") == [soup.id, book.id])
            #expect(try await search("grandma's") == [soup.id])
            #expect(try await search("diary 7") == [every.first { $0.title == "Note 7" }!.id])
            #expect(try await search("example dried v2") == [mixed.id])
            #expect(try await search("ana com 0 sun") == [mixed.id])
            #expect(try await search("recipes").isEmpty)  // no stemming
            #expect(try await search("sou").isEmpty)  // whole words only
            #expect(try await search("NEAR AND \"soup\" OR * title:") .isEmpty)  // operators are words here
            let none = try await visitor.listing("/memories?q=%21%21")
            #expect(none.ids.isEmpty && none.html.contains("No memories match."))
            // A word that many memories have (more than HubSearch.manyMatches: SQLite then looks along
            // the order's index): the same pages, newest first.
            try await server.execute("""
                INSERT INTO hub_memories (sha256, kind, title, description, taken_at, media_type, size, uploaded_by, upload_nonce, created_at)
                SELECT \(store == .sqlite ? "printf('%064d', i)" : "lpad(i::text, 64, '0')"), 'text', 'Filler ' || i, 'A filler note', \(Self.start) - i * 1000,
                    'text/plain', 10, 'test', 'test', \(Self.start)
                FROM \(store == .sqlite ? "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200) SELECT i FROM n)" : "generate_series(1, 1200) AS i")
                """)
            func titles(_ html: String) -> [String] { html.matches(of: /<a href="\/memories\/\d+">([^<]+)<\/a><\/h3>/).map { String($0.output.1) } }
            let fillers = try await visitor.listing("/memories?q=filler")
            #expect(titles(fillers.html) == (1...24).map { "Filler \($0)" })
            #expect(titles(try await visitor.listing(try #require(fillers.next)).html) == (25...48).map { "Filler \($0)" })
            #expect(titles(try await visitor.listing("/memories?q=filler%20note%20700").html) == ["Filler 700"])
            // A memory removed leaves the search.
            try await hub.removeMemory(id: kitchen.id)
            #expect(try await search("soup") == [soup.id])
            // The page keeps what was asked for in its form, escaped.
            let kept = try await visitor.page("/memories?q=%3Cb%3Esoup&kind=text")
            #expect(kept.contains("value=\"&lt;b&gt;soup\"") && kept.contains("<option value=\"text\" selected>"))

            // Addresses the page cannot show are refused with the field at fault.
            for (query, field) in [("person=abc", "person"), ("kind=film", "kind"), ("year=0", "year"), ("before=12", "before"),
                                    ("before=1.-2", "before"), ("q=" + String(repeating: "a", count: 201), "q")] {
                let refused = try await visitor.get("/memories?" + query)
                #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("\"\(field)\""), "\(query): \(refused.status)")
            }

            // The memory page: the whole text, escaped; who is in it, with links; when.
            let page = try await visitor.page("/memories/\(soup.id)")
            #expect(page.contains("<p>Grandma&#39;s soup &lt;recipe&gt; with leeks</p>"))
            #expect(page.contains("<a href=\"/people/\(rui.id)\">Rui</a>") && page.contains("5 February 2020"))
            #expect(try await visitor.get("/memories/999999").status == 404)
            // Without the session, nothing.
            let stranger = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("memories/\(soup.id)")))
            #expect(stranger.status == 401)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a photo uploaded without a description is described by its own alt text (else its caption) and extended description, labelled as from the photo, and a person's correction of it undoes back to that label; a given description wins; a camera's boilerplate, and a photo's text that no upload could hold, are not taken",
          arguments: TestStore.available)
    func descriptionFromThePhoto(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-own-description")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            func photo(_ name: String, seed: UInt64, _ update: CaptionUpdate?) throws -> String {
                let file = folder + "/\(name).jpg"
                try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: seed), to: file, as: .jpeg())
                if let update { _ = try CaptionWriter.write(update, to: file) }
                return file
            }
            let captioned = try photo("captioned", seed: 11, CaptionUpdate(caption: "A dog on a beach at sunset, waves behind it.", altText: "A dog on a beach.",
                                                                          extendedDescription: "Text reads \"LIFEGUARD\". Mostly blue and tan."))
            let own = try await hub.upload(MemoryUpload(kind: .photo, title: "Beach"), file: captioned).memory
            #expect(own.description == "A dog on a beach." && own.extendedDescription == "Text reads \"LIFEGUARD\". Mostly blue and tan.")
            let captionOnly = try photo("caption-only", seed: 12, CaptionUpdate(caption: "Grandma's kitchen, 1987.", altText: nil))
            #expect(try await hub.upload(MemoryUpload(kind: .photo, title: "Kitchen"), file: captionOnly).memory.description == "Grandma's kitchen, 1987.")
            // A given description wins, and the photo's extended description, written with its own, is not put beside it.
            let given = try photo("given", seed: 13, CaptionUpdate(caption: "Written in the file.", altText: "Written in the file.", extendedDescription: "More in the file."))
            let uploaded = try await hub.upload(MemoryUpload(kind: .photo, title: "Given", description: "Written by the uploader"), file: given).memory
            #expect(uploaded.description == "Written by the uploader" && uploaded.extendedDescription == nil)
            let bare = try photo("bare", seed: 14, nil)
            #expect(try await hub.upload(MemoryUpload(kind: .photo, title: "Bare"), file: bare).memory.description == nil)
            // A camera's boilerplate is no description.
            let camera = try photo("camera", seed: 16, CaptionUpdate(caption: "OLYMPUS DIGITAL CAMERA", altText: nil))
            #expect(try await hub.upload(MemoryUpload(kind: .photo, title: "Camera"), file: camera).memory.description == nil)
            let long = try photo("long", seed: 15, CaptionUpdate(caption: String(repeating: "sand ", count: 1200), altText: nil))
            #expect(try await hub.upload(MemoryUpload(kind: .photo, title: "Long"), file: long).memory.description == nil)

            // The page says where the description came from; a person's correction, undone, says so again.
            let visitor = try await Visitor(server)
            let path = "/memories/\(own.id)"
            let ownPage = try await visitor.page(path)
            #expect(ownPage.contains("A dog on a beach. <span class=\"source\">(from the photo's own metadata)</span>"))
            #expect(ownPage.contains("Text reads &quot;LIFEGUARD&quot;. Mostly blue and tan. <span class=\"source\">(from the photo's own metadata)</span>"))
            _ = try await visitor.post(path + "/edit", [("title", "Beach"), ("description", "Rex on the beach")])
            let corrected = try await visitor.page(path)
            #expect(corrected.contains("Rex on the beach <span class=\"source\">(written by a person)</span>"))
            #expect(corrected.contains("Mostly blue and tan. <span class=\"source\">(from the photo's own metadata)</span>"))
            let edit = try #require(try await visitor.page(path).matches(of: /name="edit" value="(\d+)"/).first.flatMap { Int64($0.output.1) })
            #expect([200, 303].contains(try await visitor.post(path + "/undo", [("edit", String(edit))]).status))
            #expect(try await visitor.page(path).contains("A dog on a beach. <span class=\"source\">(from the photo's own metadata)</span>"))
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a browser's refused correction gets the memory's page again: the error in its title and in a summary linked to each field, the fields marked and kept as typed, nothing saved; other refusals a page with the way back; scripts and the API still get the JSON error",
          arguments: TestStore.available)
    func refusalsAsPages(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-refusal-pages")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let soup = try await hub.upload(MemoryUpload(kind: .text, title: "Soup", description: "Leeks")).memory
            let visitor = try await Visitor(server)
            let browser = ["Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]
            let path = "/memories/\(soup.id)"
            func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

            let refused = try await visitor.post(path + "/edit", [("title", "  "), ("description", "Leeks <and> potatoes")], extra: browser)
            #expect(refused.status == 400 && refused.headers["content-type"]?.hasPrefix("text/html") == true)
            let page = text(refused)
            #expect(page.contains("<title>Error: Soup: Memory Palace</title>"))
            #expect(page.contains("role=\"alert\"") && page.contains("<a href=\"#title\">Title: required</a>"))
            #expect(page.contains("id=\"title-error\">Title: required</span>") && page.contains("aria-invalid=\"true\" aria-describedby=\"title-error\""))
            #expect(page.contains(">Leeks &lt;and&gt; potatoes</textarea>") && !page.contains("aria-describedby=\"description-error\""))
            #expect(try await hub.memory(id: soup.id).description == "Leeks")
            // The same refusal to a script: the JSON error body, as before.
            let scripted = try await visitor.post(path + "/edit", [("title", "")])
            #expect(scripted.status == 400 && scripted.headers["content-type"]?.hasPrefix("application/json") == true && scripted.apiError?.code == "invalid_request")

            // A change undone twice: a page that says so and leads back to the memory.
            _ = try await visitor.post(path + "/edit", [("title", "Soup"), ("description", "Leeks and potatoes")])
            let edit = try #require(try await visitor.page(path).matches(of: /name="edit" value="(\d+)"/).first.flatMap { Int64($0.output.1) })
            #expect([200, 303].contains(try await visitor.post(path + "/undo", [("edit", String(edit))]).status))
            let twice = try await visitor.post(path + "/undo", [("edit", String(edit))], extra: browser)
            #expect(twice.status == 404 && text(twice).contains("<h2 id=\"problem-title\">No such change of this memory, or it was undone already: reload the memory&#39;s page</h2>"))
            #expect(text(twice).contains("<a href=\"\(path)\" id=\"back-link\">Go back</a>"))
            let unsaid = try await visitor.post(path + "/undo", [], extra: browser)
            #expect(unsaid.status == 400 && text(unsaid).contains("<ul><li>Edit: the change&#39;s number, as the page has it</li></ul>"), "\(text(unsaid))")
            let missing = try await visitor.get("/memories/999999", headers: browser)
            #expect(missing.status == 404 && text(missing).contains("<title>Error: No such memory: Memory Palace</title>") && text(missing).contains("href=\"/memories\" id=\"back-link\""))
            // The API answers JSON to every client.
            let api = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/memories"), headers: browser))
            #expect(api.status == 401 && api.headers["content-type"]?.hasPrefix("application/json") == true)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("corrections on a memory's page: title and description edited by a person (labelled so), each change listed and undone in turn, the file never touched, search following; forms from elsewhere refused; deletion asks first, then removes the memory, its file and its history",
          arguments: TestStore.available)
    func corrections(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-corrections")
        let log = CapturedLog()
        let server = try await TestServer(folder: folder + "/server", store: store, log: log)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let file = folder + "/sand.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 400, height: 300, seed: 5), to: file, as: .jpeg())
            let original = try Data(contentsOf: URL(fileURLWithPath: file))
            let photo = try await hub.upload(MemoryUpload(kind: .photo, title: "Beach", description: "A brown animal on sand"), file: file).memory
            let visitor = try await Visitor(server)
            let path = "/memories/\(photo.id)"
            var page = try await visitor.page(path)
            #expect(page.contains("A brown animal on sand <span class=\"source\">(written automatically)</span>"))
            #expect(page.contains("No corrections yet."))
            func search(_ words: String) async throws -> [Int64] { try await visitor.listing("/memories?q=" + words).ids }
            #expect(try await search("animal") == [photo.id])

            // A person corrects both: the page says so, the API gives the correction, the search follows, the file is as it was.
            let saved = try await visitor.post(path + "/edit", [("title", "Rex at the beach"), ("description", "Rex, our dog, on Praia da Rocha")])
            #expect([200, 303].contains(saved.status), "\(saved.status) \(String(decoding: saved.body, as: UTF8.self).prefix(300))")
            page = try await visitor.page(path)
            #expect(page.contains("<h2 id=\"memory-title\">Rex at the beach</h2>"))
            #expect(page.contains("Rex, our dog, on Praia da Rocha <span class=\"source\">(written by a person)</span>"))
            #expect(page.contains("Title changed from “Beach” to “Rex at the beach”"))
            #expect(page.contains("Description changed from “A brown animal on sand” to “Rex, our dog, on Praia da Rocha”"))
            #expect(page.matches(of: /name="edit" value="(\d+)"/).count == 2)
            let corrected = try await hub.memory(id: photo.id)
            #expect(corrected.title == "Rex at the beach" && corrected.description == "Rex, our dog, on Praia da Rocha" && corrected.sha256 == photo.sha256)
            #expect(try await visitor.get("/dashboard/media/\(photo.id)").body == original)
            #expect(try await search("animal").isEmpty)
            #expect(try await search("rocha") == [photo.id])
            // Saving the same again records nothing; nor does a form without the description (it stays).
            _ = try await visitor.post(path + "/edit", [("title", "Rex at the beach"), ("description", "Rex, our dog, on Praia da Rocha")])
            _ = try await visitor.post(path + "/edit", [("title", "Rex at the beach")])
            #expect(try await visitor.page(path).matches(of: /name="edit" value="(\d+)"/).count == 2)
            #expect(try await hub.memory(id: photo.id).description == "Rex, our dog, on Praia da Rocha")

            // A second correction of the description; undoing the first is refused until the second is undone.
            _ = try await visitor.post(path + "/edit", [("title", "Rex at the beach"), ("description", "Rex on Praia da Rocha, 2019")])
            let edits = try await visitor.page(path).matches(of: /name="edit" value="(\d+)"/).compactMap { Int64($0.output.1) }
            #expect(edits.count == 3)
            let (latest, firstDescription, title) = (edits[0], edits[1], edits[2])
            #expect(try await visitor.post(path + "/undo", [("edit", String(firstDescription))]).status == 409)
            #expect([200, 303].contains(try await visitor.post(path + "/undo", [("edit", String(latest))]).status))
            #expect(try await hub.memory(id: photo.id).description == "Rex, our dog, on Praia da Rocha")
            #expect(try await visitor.page(path).contains("(written by a person)"))
            #expect([200, 303].contains(try await visitor.post(path + "/undo", [("edit", String(firstDescription))]).status))
            #expect([200, 303].contains(try await visitor.post(path + "/undo", [("edit", String(title))]).status))
            let restored = try await hub.memory(id: photo.id)
            #expect(restored.title == "Beach" && restored.description == "A brown animal on sand")
            page = try await visitor.page(path)
            #expect(page.contains("(written automatically)") && page.components(separatedBy: "Undone on").count == 4)
            #expect(try await visitor.post(path + "/undo", [("edit", String(title))]).status == 404)
            #expect(try await search("animal") == [photo.id])

            // An extended description is bounded as a description is.
            let tooLong = await hubFailure { () async throws(HubError) in
                _ = try await hub.upload(MemoryUpload(kind: .text, title: "Long", description: "x", extendedDescription: String(repeating: "z", count: 10_001)))
            }
            #expect(tooLong?.code == .invalidRequest && "\(String(describing: tooLong))".contains("metadata.extendedDescription"), "\(String(describing: tooLong))")

            // Forms from elsewhere, without the session, or malformed change nothing.
            for refused in [try await visitor.post(path + "/edit", [("title", "Hacked")], origin: "http://evil.example"),
                            try await visitor.post(path + "/edit", [("title", "Hacked")], extra: ["Sec-Fetch-Site": "cross-site"]),
                            try await visitor.post(path + "/delete", [], origin: "http://evil.example")] {
                #expect(refused.status == 403)
            }
            #expect(try await visitor.post(path + "/edit", [("title", "Hacked")], cookie: false).status == 401)
            for (fields, field) in [([("title", "  ")], "title"), ([("title", String(repeating: "x", count: 201))], "title"),
                                    ([("title", "Fine"), ("description", String(repeating: "y", count: 5001))], "description"),
                                    ((0..<40).map { ("f\($0)", "v") }, "body")] {
                let bad = try await visitor.post(path + "/edit", fields)
                #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("\"\(field)\""), "\(field): \(bad.status)")
            }
            let malformed = try await URLSessionTransport().send(HTTPRequest(method: "POST", url: server.url.appendingPathComponent("memories/\(photo.id)/edit"),
                headers: ["Cookie": visitor.cookie, "Origin": "http://127.0.0.1:\(server.port)", "Content-Type": "application/x-www-form-urlencoded"],
                body: Data("title=%zz".utf8)))
            #expect(malformed.status == 400)
            #expect(try await hub.memory(id: photo.id).title == "Beach")

            // Deletion asks first; then the memory, its file, thumbnail and history go, and it is logged.
            let confirm = try await visitor.page(path + "/delete")
            #expect(confirm.contains("Delete “Beach”?") && confirm.contains("id=\"confirm-delete\"") && confirm.contains("No, keep it"))
            let media = folder + "/server/hub/media/\(photo.sha256.prefix(2))/\(photo.sha256)"
            #expect(FileManager.default.fileExists(atPath: media))
            let deleted = try await visitor.post(path + "/delete", [])
            #expect(deleted.status == 200 && String(decoding: deleted.body, as: UTF8.self).contains("was deleted"))
            #expect(!FileManager.default.fileExists(atPath: media))
            #expect(!FileManager.default.fileExists(atPath: folder + "/server/hub/thumbnails/\(photo.sha256.prefix(2))/\(photo.sha256).jpg"))
            #expect(try await visitor.get(path).status == 404)
            #expect(try await hub.memories().memories.isEmpty)
            #expect(log.text.contains { $0.contains("memory deleted on the dashboard") && $0.contains("id=\(photo.id)") })
            #expect(!log.text.contains { $0.contains("Rocha") || $0.contains("animal") }, "a caption was logged")
            let left = try await server.count("SELECT COUNT(*) FROM hub_memory_edits")
            #expect(left == 0)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("media is served whole or in the part a Range header asks for: 206 with Content-Range, 416 past the end, the whole file for what is ignored; ETag and If-Range; the same through the API",
          arguments: TestStore.available)
    func ranges(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-ranges")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let file = folder + "/story.m4a"
            try await mediaFixture(file, "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "aac")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file)), size = bytes.count
            let voice = try await hub.upload(MemoryUpload(kind: .voice, title: "Story"), file: file).memory
            let note = try await hub.upload(MemoryUpload(kind: .text, title: "Note", description: "A note")).memory
            let visitor = try await Visitor(server)
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let etag = "\"\(voice.sha256)\""
            for path in ["/dashboard/media/\(voice.id)", "/api/memories/\(voice.id)/media"] {
                func get(_ headers: [String: String]) async throws -> HTTPResponse {
                    try await visitor.get(path, headers: headers.merging(["Authorization": "Bearer \(token)"]) { $1 })
                }
                let whole = try await get([:])
                #expect(whole.status == 200 && whole.body == bytes, "\(path)")
                #expect(whole.headers["accept-ranges"] == "bytes" && whole.headers["etag"] == etag && whole.headers["content-type"] == "audio/mp4")
                #expect(whole.headers["x-content-type-options"] == "nosniff")
                let cases: [(String, Range<Int>)] = [("bytes=0-99", 0..<100), ("bytes=100-", 100..<size), ("bytes=-50", size - 50..<size),
                                                     ("bytes=10-\(size + 1000)", 10..<size), ("bytes=\(size - 1)-\(size - 1)", size - 1..<size)]
                for (header, expected) in cases {
                    let part = try await get(["Range": header])
                    #expect(part.status == 206, "\(path) \(header): \(part.status)")
                    #expect(part.body == bytes.subdata(in: expected), "\(path) \(header)")
                    #expect(part.headers["content-range"] == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(size)", "\(part.headers)")
                }
                let past = try await get(["Range": "bytes=\(size)-"])
                #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(size)" && past.body.isEmpty)
                #expect(try await get(["Range": "bytes=-0"]).status == 416)
                // Ignored, so the whole file: several ranges, another unit, malformed, reversed, too many digits.
                for header in ["bytes=0-1,5-6", "items=0-5", "bytes=abc", "bytes=5-2", "bytes=0-99999999999999999999", "bytes=-", "bytes= 1 - 2"] {
                    let ignored = try await get(["Range": header])
                    #expect(ignored.status == 200 && ignored.body == bytes, "\(path) \(header): \(ignored.status)")
                }
                // If-Range: a part only of this very file.
                #expect(try await get(["Range": "bytes=0-9", "If-Range": etag]).status == 206)
                #expect(try await get(["Range": "bytes=0-9", "If-Range": "\"0000\""]).status == 200)
            }
            // A text memory has no media for a player.
            #expect(try await visitor.get("/dashboard/media/\(note.id)").status == 404)
            #expect(try await visitor.get("/dashboard/media/424242").status == 404)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("each kind of memory page in the browser: the photo with its description as alt text, the voice recording and the video playing and seeking through range requests, the text in full, the search page, a refusal's page; axe-core finds nothing on any")
    func browser() async throws {
        let folder = try temporaryFolder("hub-memory-browser")
        let log = CapturedLog()
        let server = try await TestServer(folder: folder + "/server", log: log)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana")
            let photoFile = folder + "/red.jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: RGBAColor(red: 220, green: 20, blue: 30)), to: photoFile, as: .jpeg())
            let photo = try await hub.upload(MemoryUpload(kind: .photo, title: "Ana's red coat", description: "Ana in her red coat at the harbour", place: "Porto",
                                                          people: [ana.id], extendedDescription: "Text reads: HARBOUR MASTER.\nOne face. Mostly red."),
                                             file: photoFile).memory
            #expect(photo.extendedDescription == "Text reads: HARBOUR MASTER.\nOne face. Mostly red.")
            let voiceFile = folder + "/story.m4a", videoFile = folder + "/party.mp4"
            try await mediaFixture(voiceFile, "-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-c:a", "aac")
            // Noisy frames, so the file is large enough (several MB) that seeking asks for another part of it.
            try await mediaFixture(videoFile, "-f", "lavfi", "-i", "testsrc=size=640x360:rate=25,noise=alls=50:allf=t", "-f", "lavfi", "-i", "sine=frequency=300:duration=6",
                             "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest")
            let voice = try await hub.upload(MemoryUpload(kind: .voice, title: "Grandpa's story"), file: voiceFile).memory
            let video = try await hub.upload(MemoryUpload(kind: .video, title: "The party", people: [ana.id]), file: videoFile).memory
            let text = try await hub.upload(MemoryUpload(kind: .text, title: "Sunday lunch", description: "Grandma's soup recipe:\nleeks, potatoes & bread")).memory

            let key = try await ServerData.open(folder + "/server").dashboardKey
            func url(_ path: String) -> URL { URL(string: server.url.absoluteString + path + (path.contains("?") ? "&" : "?") + "key=\(key)")! }
            func checked(_ report: HubDashboardTests.BrowserReport, _ name: String) {
                #expect(report.axe.error == nil, "\(name): \(report.axe.error ?? "")")
                #expect(report.axe.violations?.isEmpty == true, "\(name): \(report.axe.violations ?? [])")
                #expect((report.axe.passes ?? 0) > 10, "\(name)")
                #expect(report.images.allSatisfy { $0.loaded }, "\(name): \(report.images)")
                #expect(report.focus.first?.text == "Skip to the content", "\(name): \(report.focus)")
            }

            let photoPage = try await HubDashboardTests.browse(url("/memories/\(photo.id)"), screenshot: folder + "/photo.png")
            checked(photoPage, "photo")
            #expect(photoPage.title == "Ana's red coat: Memory Palace")
            #expect(photoPage.images.map(\.alt) == ["Ana in her red coat at the harbour"] && photoPage.images.first?.src == "/dashboard/media/\(photo.id)")
            #expect(try HubDashboardTests.count(folder + "/photo.png").red > 20_000, "the photo is not shown full size")
            // Beneath it, what did not fit in the alt text.
            let photoHTML = try await Visitor(server).page("/memories/\(photo.id)")
            #expect(photoHTML.contains("<dt>More</dt><dd>Text reads: HARBOUR MASTER.<br>One face. Mostly red. <span class=\"source\">(written automatically)</span></dd>"))

            let voicePage = try await HubDashboardTests.browse(url("/memories/\(voice.id)"), screenshot: folder + "/voice.png", play: true)
            checked(voicePage, "voice")
            #expect(voicePage.player?.error == nil, "\(voicePage.player?.error ?? "")")
            #expect(voicePage.player?.played == true && voicePage.player?.seeked == true, "\(String(describing: voicePage.player))")
            #expect(abs((voicePage.player?.duration ?? 0) - 4) < 0.2)

            let mediaLines = { log.text.filter { $0.contains("route=/dashboard/media/{id}") } }
            let beforeVideo = mediaLines().count
            let videoPage = try await HubDashboardTests.browse(url("/memories/\(video.id)"), screenshot: folder + "/video.png", play: true)
            checked(videoPage, "video")
            #expect(videoPage.player?.played == true && videoPage.player?.seeked == true, "\(String(describing: videoPage.player))")
            #expect(abs((videoPage.player?.seekedTo ?? 0) - 3) < 0.5, "\(String(describing: videoPage.player))")
            // The player's parts were range requests, each answered 206.
            let videoRequests = mediaLines().dropFirst(beforeVideo)
            #expect(videoRequests.count >= 2 && videoRequests.allSatisfy { $0.contains("status=206") }, "\(Array(videoRequests))")

            // The page says what a listener needs before pressing play.
            let visitor = try await Visitor(server)
            let videoHTML = try await visitor.page("/memories/\(video.id)")
            #expect(videoHTML.contains("Video, 0:06 long, with sound"), "\(videoHTML)")
            #expect(try await visitor.page("/memories/\(voice.id)").contains("Voice recording, 0:04 long"))
            #expect(videoHTML.contains("poster=\"/dashboard/thumbnails/\(video.id)\""))

            // The text corrected once: its page lists the change with its Undo button.
            // The text sent back as a browser sends a textarea (CR LF) is not a change of it.
            let saved = try await visitor.post("/memories/\(text.id)/edit", [("title", "Sunday lunch at Grandma's"), ("description", "Grandma's soup recipe:\r\nleeks, potatoes & bread")])
            #expect([200, 303].contains(saved.status))
            let textHTML = try await visitor.page("/memories/\(text.id)")
            #expect(textHTML.contains("Title changed from") && !textHTML.contains("Text changed from"), "\(textHTML)")
            let textPage = try await HubDashboardTests.browse(url("/memories/\(text.id)"), screenshot: folder + "/text.png")
            checked(textPage, "text")
            #expect(textPage.title == "Sunday lunch at Grandma's: Memory Palace")
            let confirmPage = try await HubDashboardTests.browse(url("/memories/\(text.id)/delete"), screenshot: folder + "/delete.png")
            checked(confirmPage, "delete")
            #expect(try await visitor.page("/memories/\(text.id)").contains("<p>Grandma&#39;s soup recipe:</p><p>leeks, potatoes &amp; bread</p>"))

            // A refusal a browser gets is a page too, as accessible as the others.
            let missingPage = try await HubDashboardTests.browse(url("/memories/999999"), screenshot: folder + "/missing.png")
            checked(missingPage, "missing")
            #expect(missingPage.title == "Error: No such memory: Memory Palace")

            let searchPage = try await HubDashboardTests.browse(url("/memories?q=grandma"), screenshot: folder + "/search.png")
            checked(searchPage, "search")
            #expect(searchPage.title == "Memories: Memory Palace")
            #expect(try await visitor.listing("/memories?q=grandma").ids == [text.id])
            #expect(try await visitor.listing("/memories?q=grandpa").ids == [voice.id])
        } cleanup: {
            await server.stop()
        }
    }
}
