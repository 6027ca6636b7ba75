import Foundation
import MemoraHub
import Testing

/// A memory and an upload share their details (``MemoryDetails``) but stay flat on the wire, as the seed
/// apps speak it, and the details' rules are one function for the upload route and the dashboard.
@Suite("Memory messages")
struct MemoryMessageTests {
    private static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a memory is one flat JSON object, absent fields left out, and reads back the same")
    func memoryFlat() throws {
        let details = MemoryDetails(kind: .photo, title: "Beach", description: "Two people on sand.", takenAt: 1_700_000_000_000,
                                    latitude: 41.15, longitude: -8.61)
        let memory = HubMemory(id: 7, details: details, people: [2, 3], faces: [FaceTag(id: 1, x: 0.1, y: 0.2, width: 0.3, height: 0.4, personId: 2)],
                               mediaType: "image/jpeg", size: 1234, sha256: String(repeating: "ab", count: 32), width: 640, height: 480,
                               uploadedBy: "phone", createdAt: 1_700_000_100_000, mediaUrl: "/api/memories/7/media", thumbnailUrl: nil)
        let data = try JSONEncoder().encode(memory)
        let json = try Self.object(data)
        #expect(json["details"] == nil)
        #expect(json["title"] as? String == "Beach" && json["kind"] as? String == "photo" && json["id"] as? Int == 7)
        #expect(json["latitude"] as? Double == 41.15 && json["people"] as? [Int] == [2, 3])
        #expect(json["place"] == nil && json["extendedDescription"] == nil && json["thumbnailUrl"] == nil && json["durationMs"] == nil)
        #expect(Set(json.keys) == ["id", "kind", "title", "description", "takenAt", "latitude", "longitude", "people", "faces", "mediaType",
                                   "size", "sha256", "width", "height", "uploadedBy", "createdAt", "mediaUrl"])
        let read = try JSONDecoder().decode(HubMemory.self, from: data)
        #expect(read == memory)
        #expect(read.title == "Beach" && read.takenAt == 1_700_000_000_000)

        // A memory without a title (or any other field the hub always sends) is not read as one.
        var missing = json
        missing["title"] = nil
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HubMemory.self, from: JSONSerialization.data(withJSONObject: missing)) }
    }

    @Test("an upload's metadata as a client writes it by hand is read, and its details are its own fields")
    func uploadFlat() throws {
        let text = #"{"kind":"text","title":"Soup","description":"Leeks and potatoes","place":"Porto","people":[4],"uploadId":"u1"}"#
        var upload = try JSONDecoder().decode(MemoryUpload.self, from: Data(text.utf8))
        #expect(upload.kind == .text && upload.title == "Soup" && upload.place == "Porto" && upload.takenAt == nil)
        #expect(upload.people == [4] && upload.faces == nil && upload.uploadId == "u1")
        upload.title = "Grandma's soup"
        #expect(upload.details.title == "Grandma's soup")
        let json = try Self.object(try JSONEncoder().encode(upload))
        #expect(Set(json.keys) == ["kind", "title", "description", "place", "people", "uploadId"])
        #expect(try JSONDecoder().decode(MemoryUpload.self, from: JSONEncoder().encode(upload)) == upload)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(MemoryUpload.self, from: Data(#"{"kind":"film","title":"x"}"#.utf8)) }
    }

    @Test("the details' problems name each wrong field after the prefix, and nothing when all is well")
    func problems() {
        #expect(MemoryDetails(kind: .photo, title: "Beach", takenAt: 0, latitude: -90, longitude: 180).problems().isEmpty)
        let wrong = MemoryDetails(kind: .photo, title: "", description: String(repeating: "d", count: 5001), extendedDescription: "a\u{7}b",
                                  takenAt: -1, latitude: 91, longitude: nil, place: String(repeating: "p", count: 201))
        #expect(wrong.problems(prefix: "metadata.").map(\.field) == ["metadata.title", "metadata.description", "metadata.extendedDescription",
                                                                      "metadata.place", "metadata.takenAt", "metadata.latitude", "metadata.latitude"])
        // A text memory's text may be longer than a photo's description.
        #expect(MemoryDetails(kind: .text, title: "Diary", description: String(repeating: "d", count: 5001)).problems().isEmpty)
        #expect(MemoryDetails(kind: .photo, title: "t", takenAt: 253_402_300_800_000).problems().map(\.field) == ["takenAt"])
        #expect(MemoryDetails(kind: .photo, title: "t", latitude: 0, longitude: -180.5).problems().map(\.field) == ["longitude"])
        #expect(MemoryDetails.titleProblem("A\u{202E}b") != nil && MemoryDetails.titleProblem("Beach") == nil)
    }
}
