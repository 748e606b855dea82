/**
 * Nearby traffic on the live page: the same MQTT topics the SDKs read, from the traffic broker over
 * WebSockets (docs/traffic.md), with the page's watch ticket as password. A symbol per track on the
 * map, pointing along its heading, red when it is an alert; a list beside. The page allows inline
 * scripts only, so the few MQTT 3.1.1 packets it needs (CONNECT, SUBSCRIBE, PINGREQ; CONNACK,
 * PUBLISH at QoS 0) are written here rather than loading a client library.
 */

/** The section under the map; empty when the service runs no traffic broker for pages. */
export function trafficSection(trafficUrl: string | null | undefined): string {
  if (!trafficUrl) return "";
  return `<section aria-labelledby="traffic-h"><h2 id="traffic-h">Nearby traffic <span id="traffic-status" class="legend">connecting…</span></h2>
<p class="legend">From the traffic broker, as the SDKs get it: aircraft within 10 miles (▲ along its heading); <b class="traffic-alert">red</b>: within 1,000 m in the next 30 s.</p>
<ol id="traffic-list"></ol></section>`;
}

export const TRAFFIC_CSS = `.traffic-alert{color:var(--bad)}#traffic-list li.traffic-alert{font-weight:600}`;

/** The script: reads the page's model (flightId, ticket, trafficUrl) and draws into the map's svg. */
export const TRAFFIC_SCRIPT = `(function(){
"use strict";
var model=JSON.parse(document.getElementById("model").textContent);if(!model.trafficUrl)return;
var NS="http://www.w3.org/2000/svg",proj=model.map.projection,tracks={},enc=new TextEncoder(),dec=new TextDecoder();
function $(id){return document.getElementById(id)}
function px(lng,lat){return[(lng*proj.xScale-proj.x0)*proj.scale,(-lat-proj.y0)*proj.scale]}
function str(s){var b=enc.encode(s);return[b.length>>8,b.length&255].concat(Array.from(b))}
function packet(type,body){var len=body.length,head=[type];do{var d=len%128;len=Math.floor(len/128);head.push(len>0?d|128:d)}while(len>0);return new Uint8Array(head.concat(body))}
var topics=["uav/traffic/sa/"+model.flightId,"uav/traffic/alert/"+model.flightId];
var ws=new WebSocket(model.trafficUrl,"mqtt");ws.binaryType="arraybuffer";var buf=new Uint8Array(0),ping;
function status(t,bad){$("traffic-status").textContent=t;$("traffic-status").className=bad?"legend traffic-alert":"legend"}
ws.onopen=function(){ws.send(packet(0x10,str("MQTT").concat([4,0xC2,0,30],str("page-"+Math.random().toString(36).slice(2,10)),str(model.flightId),str(model.ticket))))};
ws.onclose=function(){clearInterval(ping);status("disconnected: reload the page for a new ticket",true)};
ws.onmessage=function(m){var add=new Uint8Array(m.data),all=new Uint8Array(buf.length+add.length);all.set(buf);all.set(add,buf.length);buf=all;
 for(;;){var mul=1,len=0,i=1,b;do{if(i>=buf.length)return;b=buf[i++];len+=(b&127)*mul;mul*=128}while(b&128);
  if(buf.length<i+len)return;var first=buf[0],type=first>>4,body=buf.subarray(i,i+len);buf=buf.slice(i+len);
  if(type===2){if(body[1]!==0){status(body[1]===5?"not authorized":"refused ("+body[1]+")",true);return}
   status("live");var sub=[0,1];topics.forEach(function(t){sub=sub.concat(str(t),[0])});ws.send(packet(0x82,sub));
   ping=setInterval(function(){ws.send(new Uint8Array([0xC0,0]))},20000)}
  else if(type===3){var tl=(body[0]<<8)|body[1],topic=dec.decode(body.subarray(2,2+tl)),off=2+tl+((first>>1&3)?2:0);
   try{onTraffic(topic.indexOf("/alert/")>0?"alert":"sa",JSON.parse(dec.decode(body.subarray(off))).traffic)}catch(e){}}}};
function onTraffic(kind,list){var now=Date.now();list.forEach(function(t){tracks[t.id]={t:t,kind:kind,at:now}});draw()}
function draw(){var now=Date.now(),svg=$("track")&&$("track").ownerSVGElement,g=$("traffic-layer"),ol=$("traffic-list");
 if(svg&&!g){g=document.createElementNS(NS,"g");g.id="traffic-layer";svg.appendChild(g)}
 if(g)while(g.firstChild)g.removeChild(g.firstChild);while(ol.firstChild)ol.removeChild(ol.firstChild);
 Object.keys(tracks).sort().forEach(function(id){var e=tracks[id],t=e.t;if(now-e.at>30000){delete tracks[id];return}
  var alert=e.kind==="alert",color=alert?"#b42318":"#b26b00";
  if(g){var p=px(+t.longitude,+t.latitude),s=document.createElementNS(NS,"g");
   s.setAttribute("class","traffic-symbol "+(alert?"traffic-alert":"traffic-sa"));s.setAttribute("transform","translate("+p[0].toFixed(1)+" "+p[1].toFixed(1)+") rotate("+(+t.true_heading)+")");
   var a=document.createElementNS(NS,"path");a.setAttribute("d","M0 -9L6 7L0 3L-6 7Z");a.setAttribute("fill",color);a.setAttribute("stroke","#fff");s.appendChild(a);
   var ti=document.createElementNS(NS,"title");ti.textContent=t.properties.aircraft_id+" · "+t.altitude+" ft · "+t.ground_speed_kts+" kt";s.appendChild(ti);g.appendChild(s)}
  var li=document.createElement("li");li.className=alert?"traffic-alert":"";
  li.textContent=(alert?"ALERT ":"")+t.properties.aircraft_id+" ("+t.properties.aircraft_type+"): bearing "+t.direction+"°, "+t.altitude+" ft, "+t.ground_speed_kts+" kt, heading "+t.true_heading+"°";ol.appendChild(li)});
 if(!ol.firstChild){var none=document.createElement("li");none.textContent="none near the flight";ol.appendChild(none)}}
setInterval(draw,5000);
})();`;
