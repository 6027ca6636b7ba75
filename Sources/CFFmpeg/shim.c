// See include/CFFmpeg.h.
#include "CFFmpeg.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <stdlib.h>
#include <string.h>

/// The containers phones and cameras record video and voice in.
static const char *allowed_formats = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,wav,mp3,ogg,aac,flac,avi";

static void describe(int status, char *error, size_t error_size) {
    if (error && error_size > 0) av_strerror(status, error, error_size);
}

static int open_input(const char *path, AVFormatContext **context, char *error, size_t error_size) {
    av_log_set_level(AV_LOG_QUIET);
    AVDictionary *options = NULL;
    av_dict_set(&options, "format_whitelist", allowed_formats, 0);
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    int status = avformat_open_input(context, path, NULL, &options);
    av_dict_free(&options);
    if (status < 0) { describe(status, error, error_size); return status; }
    status = avformat_find_stream_info(*context, NULL);
    if (status < 0) { describe(status, error, error_size); avformat_close_input(context); return status; }
    return 0;
}

int memora_media_probe(const char *path, memora_media_info *info, char *error, size_t error_size) {
    memset(info, 0, sizeof(*info));
    info->duration_ms = -1;
    AVFormatContext *context = NULL;
    int status = open_input(path, &context, error, error_size);
    if (status < 0) return status;
    if (context->duration != AV_NOPTS_VALUE && context->duration > 0) info->duration_ms = context->duration / 1000;
    for (unsigned index = 0; index < context->nb_streams; index++) {
        AVCodecParameters *parameters = context->streams[index]->codecpar;
        if (parameters->codec_type == AVMEDIA_TYPE_VIDEO && !info->has_video && !(context->streams[index]->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
            info->has_video = 1;
            info->width = parameters->width;
            info->height = parameters->height;
        }
        if (parameters->codec_type == AVMEDIA_TYPE_AUDIO) info->has_audio = 1;
    }
    if (context->iformat && context->iformat->name) {
        strncpy(info->format, context->iformat->name, sizeof(info->format) - 1);
    }
    avformat_close_input(&context);
    return 0;
}

int memora_media_poster(const char *path, int max_side, int64_t at_ms, unsigned char **pixels, int *width, int *height,
                        char *error, size_t error_size) {
    *pixels = NULL;
    AVFormatContext *context = NULL;
    int status = open_input(path, &context, error, error_size);
    if (status < 0) return status;
    const AVCodec *codec = NULL;
    int stream = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (stream < 0 || codec == NULL) {
        describe(stream < 0 ? stream : AVERROR_DECODER_NOT_FOUND, error, error_size);
        avformat_close_input(&context);
        return stream < 0 ? stream : AVERROR_DECODER_NOT_FOUND;
    }
    AVCodecContext *decoder = avcodec_alloc_context3(codec);
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    struct SwsContext *scaler = NULL;
    status = decoder && packet && frame ? 0 : AVERROR(ENOMEM);
    if (status == 0) status = avcodec_parameters_to_context(decoder, context->streams[stream]->codecpar);
    if (status == 0) status = avcodec_open2(decoder, codec, NULL);
    if (status == 0 && at_ms > 0 && context->duration > at_ms * 1000) {
        int64_t target = av_rescale_q(at_ms, (AVRational){1, 1000}, context->streams[stream]->time_base);
        if (av_seek_frame(context, stream, target, AVSEEK_FLAG_BACKWARD) < 0) av_seek_frame(context, stream, 0, AVSEEK_FLAG_BACKWARD);
    }
    int got = 0;
    while (status >= 0 && !got) {
        status = av_read_frame(context, packet);
        if (status == AVERROR_EOF) {
            avcodec_send_packet(decoder, NULL);  // drain what the decoder holds
        } else if (status < 0) {
            break;
        } else if (packet->stream_index != stream) {
            av_packet_unref(packet);
            continue;
        } else {
            status = avcodec_send_packet(decoder, packet);
            av_packet_unref(packet);
            if (status < 0 && status != AVERROR(EAGAIN)) break;
        }
        int received = avcodec_receive_frame(decoder, frame);
        if (received == 0) { got = 1; status = 0; break; }
        if (received != AVERROR(EAGAIN)) { status = received; break; }
        if (status == AVERROR_EOF) break;
        status = 0;
    }
    if (got) {
        int source_width = frame->width, source_height = frame->height;
        int target_width = source_width, target_height = source_height;
        int longest = source_width > source_height ? source_width : source_height;
        if (max_side > 0 && longest > max_side) {
            target_width = (int)((int64_t)source_width * max_side / longest);
            target_height = (int)((int64_t)source_height * max_side / longest);
            if (target_width < 1) target_width = 1;
            if (target_height < 1) target_height = 1;
        }
        scaler = sws_getContext(source_width, source_height, (enum AVPixelFormat)frame->format, target_width, target_height,
                                AV_PIX_FMT_RGB24, SWS_AREA, NULL, NULL, NULL);
        unsigned char *buffer = scaler ? malloc((size_t)target_width * (size_t)target_height * 3) : NULL;
        if (!buffer) {
            status = AVERROR(ENOMEM);
        } else {
            uint8_t *planes[4] = {buffer, NULL, NULL, NULL};
            int strides[4] = {target_width * 3, 0, 0, 0};
            sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, source_height, planes, strides);
            *pixels = buffer;
            *width = target_width;
            *height = target_height;
            status = 0;
        }
    } else if (status >= 0) {
        status = AVERROR_INVALIDDATA;
    }
    if (status < 0) describe(status, error, error_size);
    sws_freeContext(scaler);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&context);
    return status;
}

void memora_media_free(void *pointer) {
    free(pointer);
}
